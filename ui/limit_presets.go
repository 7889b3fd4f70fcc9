package ui

import (
	"strconv"

	"dtp-personal/engine/settings"
)

// fillPreset puts a preset's depth and caps (settings.LimitPresets) in the
// form, to be saved; the other fields (the follow band, the connection
// caps) keep what the form holds.
func (v *settingsView) fillPreset(p settings.LimitPreset) {
	l := settings.DefaultLimits()
	p.Apply(&l)
	for j, f := range settings.LimitFields {
		if p.Sets(f) {
			v.limits[j].SetText(strconv.Itoa(*f.Of(&l)))
		}
	}
}
