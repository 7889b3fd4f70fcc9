package engine

import (
	"slices"

	"dtp-personal/engine/settings"
)

// commitSettings hands each part the settings it acts on, and only when they
// really changed (syncthing's committer pattern): a new listen address does
// not make the frontier walk again, and new limits reach the running heap.
func (e *Engine) commitSettings(from, to settings.Settings) {
	if !slices.Equal(from.Roots, to.Roots) {
		e.trust.frontier.SetRoots(to.Roots)
	}
	if from.Limits != to.Limits {
		e.trust.heap.SetLimits(to.Limits)
		e.trust.frontier.SetLimits(to.Limits)
	}
	if !slices.Equal(from.Relays, to.Relays) {
		e.sync.TrackRelays()
	}
	e.commitRepoSettings(from, to)
	if from.Strategy != to.Strategy || from.IntervalMinutes != to.IntervalMinutes || from.Paused != to.Paused ||
		!slices.Equal(from.Relays, to.Relays) {
		e.wakeSync()
	}
}

// wakeSync tells the sync runner to read its settings again.
func (e *Engine) wakeSync() {
	select {
	case e.settingsChanged <- struct{}{}:
	default:
	}
}
