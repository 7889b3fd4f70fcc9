package engine

import (
	"cmp"
	"slices"

	"dtp-personal/engine/server"
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
		e.server.SetLimits(e.serverLimits(to.Limits))
		if err := e.store.SetWALLimit(walLimit(to.Limits)); err != nil {
			e.log.Warn("write-ahead log limit", "err", err)
		}
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

// serverLimits are the server's limits under the user's limits l: the
// queue budgets and the tag cap are l's unless Options.ServerLimits sets
// them, the rest are Options.ServerLimits' or the defaults.
func (e *Engine) serverLimits(l settings.Limits) server.Limits {
	o := e.opts.ServerLimits
	sl := o
	if o == (server.Limits{}) {
		sl = server.DefaultLimits()
	}
	sl.MaxQueuedBytes = cmp.Or(o.MaxQueuedBytes, l.MaxQueuedMiB<<20)
	sl.MaxTotalQueuedBytes = cmp.Or(o.MaxTotalQueuedBytes, int64(l.MaxTotalQueuedMiB)<<20)
	sl.MaxTagBytes = cmp.Or(o.MaxTagBytes, l.MaxTagKiB<<10)
	return sl
}

// walLimit is the write-ahead log's bound in bytes under the user's limits.
func walLimit(l settings.Limits) int64 { return int64(l.MaxWALMiB) << 20 }
