package ui

import (
	"slices"
	"strconv"

	"dtp-personal/engine/settings"
)

// limitPresets are the caps for the size of network followed: Normal is
// the defaults; Small and Large scale the people, events and memory caps by
// 4 each way (and the depth by one). Other limits keep their defaults.
var limitPresets = []struct {
	name   string
	depth  int
	factor float64
}{
	{"Small network", 3, 0.25},
	{"Normal network", 0, 1},
	{"Large network", settings.MaxDepthHardCap, 4},
}

// scaledCaps are the caps a preset scales.
var scaledCaps = []string{"maxAuthorsPerLevel", "maxTotalAuthors", "maxEvents", "maxRatingEvents",
	"maxDiscoveryEvents", "heapNodeLimit", "heapEdgeLimit"}

// presetLimits are the limits of the i-th preset.
func presetLimits(i int) settings.Limits {
	p := limitPresets[i]
	l := settings.DefaultLimits()
	for _, f := range settings.LimitFields {
		v := f.Of(&l)
		switch {
		case f.JSON == "maxDepth" && p.depth > 0:
			*v = p.depth
		case slices.Contains(scaledCaps, f.JSON):
			*v = min(f.Max, int(float64(*v)*p.factor))
		}
	}
	return l
}

// fillPreset puts the i-th preset's depth and caps in the form, to be
// saved; the other fields (the follow band, the connection caps) keep what
// the form holds.
func (v *settingsView) fillPreset(i int) {
	l := presetLimits(i)
	for j, f := range settings.LimitFields {
		if f.JSON == "maxDepth" || slices.Contains(scaledCaps, f.JSON) {
			v.limits[j].SetText(strconv.Itoa(*f.Of(&l)))
		}
	}
}
