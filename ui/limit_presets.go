package ui

import (
	"slices"
	"strconv"

	"dtp-personal/engine/settings"
)

// limitHelp is one line of help per cap, with its unit, by JSON name; a
// cap without one shows its label alone.
var limitHelp = map[string]string{
	"maxDepth":                 "hops from you that are followed (1 = only the people you trust)",
	"maxAuthorsPerLevel":       "people followed at each hop, at most",
	"maxTotalAuthors":          "people followed in all, at most",
	"maxEvents":                "trust statements fetched per pass, at most",
	"maxRatingEvents":          "ratings fetched per pass, at most",
	"maxDiscoveryEvents":       "statements fetched per pass to find who owns an X account, at most",
	"heapNodeLimit":            "people and subjects kept in memory, at most (about 100 bytes each)",
	"heapEdgeLimit":            "statements kept in memory, at most (about 40 bytes each)",
	"pageTimeoutSeconds":       "seconds to wait for one page of history from a relay",
	"followThreshold":          "% of trust at which a person's word counts and an answer is trusted (the extension's 75)",
	"red":                      "% of trust below which an answer is distrusted; between the two it is mixed (25)",
	"maxConnections":           "clients connected to this server at once, at most",
	"maxConnectionsPerAddress": "clients connected from one address at once, at most",
	"maxQueuedMiB":             "MiB waiting to be sent to one client; a client that stops reading is dropped",
	"maxTotalQueuedMiB":        "MiB waiting to be sent to all clients; past it the slowest are dropped",
	"maxTagKiB":                "KiB of tags one event may carry; a larger one is refused",
	"maxWALMiB":                "MiB of the database's write-ahead log on disk, at most (the database file is what grows with your data)",
	"maxSubscriptions":         "subscriptions one client may keep open (a GRASP-02 peer opens about 70)",
	"maxFiltersPerReq":         "filters one request may carry",
	"maxMessageKiB":            "KiB one message from a client may take",
	"maxRepoRelays":            "relays repository sync connects to, at most (those most repositories share are kept)",
	"maxRelaysPerRepo":         "relays taken from one repository's announcement, at most",
}

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
