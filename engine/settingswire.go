package engine

import (
	"cmp"
	"slices"

	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// A settingsPart is a part of the running engine that acts on settings. Each
// registers once (registerSettingsParts) and is handed the settings before
// and after every change, from any process, and applies what it uses and
// what changed (syncthing's committer pattern): a new listen address does
// not make the frontier walk again, and new limits reach the running heap.
type settingsPart func(from, to settings.Settings)

// registerSettingsParts lists the parts that apply settings while running,
// once Open has built them.
func (e *Engine) registerSettingsParts() {
	e.settingsParts = []settingsPart{
		e.applyTrustSettings,
		func(from, to settings.Settings) {
			if from.Limits != to.Limits {
				e.server.SetLimits(e.serverLimits(to.Limits))
			}
		},
		func(from, to settings.Settings) {
			if walLimit(from.Limits) != walLimit(to.Limits) {
				if err := e.store.SetWALLimit(walLimit(to.Limits)); err != nil {
					e.log.Warn("write-ahead log limit", "err", err)
				}
			}
		},
		e.sync.ApplySettings,  // strategy, interval, pause, relays; limits at each pass and connection
		e.repos.ApplySettings, // services, bootstrap relay; the page timeout at each connection
		// access rules: read by the server at each request (server.Config.Access)
	}
}

// fixedAtStart are the settings a running engine takes at its start only:
// a change waits for the next start, and Modify says so (RestartNeeded).
var fixedAtStart = []struct {
	what string
	of   func(settings.Settings) string
}{
	{"listen address", func(s settings.Settings) string { return s.Listen }},      // the listener is bound in Serve
	{"scope profile", func(s settings.Settings) string { return s.ScopeProfile }}, // the pipeline's rules, built in Open
}

// commitSettings hands every registered part the settings before and after a
// change.
func (e *Engine) commitSettings(from, to settings.Settings) {
	for _, apply := range e.settingsParts {
		apply(from, to)
	}
}

// applyTrustSettings gives the frontier its roots and caps and the heap its
// guardrails; a raised guardrail starts a refill of the heap.
func (e *Engine) applyTrustSettings(from, to settings.Settings) {
	if !slices.Equal(from.Roots, to.Roots) {
		e.trust.frontier.SetRoots(to.Roots)
	}
	if from.Limits != to.Limits {
		e.trust.heap.SetLimits(to.Limits)
		e.trust.frontier.SetLimits(to.Limits)
	}
	if to.Limits.HeapNodeLimit > from.Limits.HeapNodeLimit || to.Limits.HeapEdgeLimit > from.Limits.HeapEdgeLimit {
		select { // what the old guardrail refused comes in from the store (refillHeap)
		case e.heapRefill <- struct{}{}:
		default:
		}
	}
}

// RestartNeeded is Modify's answer to a change that was saved and applied
// but for settings a running engine takes only at its start (fixedAtStart):
// those wait for the next start. Callers that only need the change saved
// treat it as success (errors.As).
type RestartNeeded struct {
	Settings []string // what waits, in words: "listen address"
}

func (r *RestartNeeded) Error() string {
	return "saved; " + status.WaitingForStart(r.Settings)
}

// atNextStart lists the settings fixed at start that a change from was to
// now moves away from what this engine started with.
func (e *Engine) atNextStart(was, now settings.Settings) []string {
	var out []string
	for _, f := range fixedAtStart {
		if f.of(now) != f.of(was) && f.of(now) != f.of(e.started) {
			out = append(out, f.what)
		}
	}
	return out
}

// pendingRestart lists the settings fixed at start whose stored value
// differs from the one this engine runs with (status: restartNeeded).
func (e *Engine) pendingRestart() []string {
	var out []string
	now := e.Settings()
	for _, f := range fixedAtStart {
		if f.of(now) != f.of(e.started) {
			out = append(out, f.what)
		}
	}
	return out
}

// serverLimits are the server's limits under the user's limits l: the
// queue budgets, the tag cap and the per-connection request limits
// (subscriptions, filters, message size) are l's unless
// Options.ServerLimits sets them, the rest are Options.ServerLimits' or the
// defaults.
func (e *Engine) serverLimits(l settings.Limits) server.Limits {
	o := e.opts.ServerLimits
	sl := o
	if o == (server.Limits{}) {
		sl = server.DefaultLimits()
	}
	sl.MaxQueuedBytes = cmp.Or(o.MaxQueuedBytes, l.MaxQueuedMiB<<20)
	sl.MaxTotalQueuedBytes = cmp.Or(o.MaxTotalQueuedBytes, int64(l.MaxTotalQueuedMiB)<<20)
	sl.MaxTagBytes = cmp.Or(o.MaxTagBytes, l.MaxTagKiB<<10)
	sl.MaxSubscriptions = cmp.Or(o.MaxSubscriptions, l.MaxSubscriptions)
	sl.MaxFilters = cmp.Or(o.MaxFilters, l.MaxFiltersPerReq)
	sl.MaxMessageBytes = cmp.Or(o.MaxMessageBytes, l.MaxMessageKiB<<10)
	sl.MaxFrameBytes = max(sl.MaxFrameBytes, int64(sl.MaxMessageBytes)) // a message the limit allows is read, not cut
	return sl
}

// walLimit is the write-ahead log's bound in bytes under the user's limits.
func walLimit(l settings.Limits) int64 { return int64(l.MaxWALMiB) << 20 }
