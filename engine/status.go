package engine

import (
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// KeptKinds are the event kinds the trust profile stores.
var KeptKinds = []int{validation.KindTrust, validation.KindRating, validation.KindClaims}

// statusDocument serves the status snapshot as GET /api/v1/status.
type statusDocument struct{ e *Engine }

func (d statusDocument) StatusDocument() any { return d.e.Status() }

// Status assembles the engine's status snapshot (SPEC §12).
func (e *Engine) Status() status.Snapshot {
	s := e.Settings()
	snap := status.Snapshot{
		Strategy:        s.Strategy,
		IntervalMinutes: s.IntervalMinutes,
		Paused:          s.Paused,
		State:           status.StateIdle,
		Coverage:        status.Coverage{State: "complete", Reasons: []string{}},
		Relays:          e.relayStatus(),
		Ingest:          e.stats.snapshot(e.ingest.Duplicates()),
		Settings: status.Settings{
			Listen: s.Listen, AllowLAN: s.AllowLAN, ScopeProfile: s.ScopeProfile,
			Limits: s.Limits, StartAtLogin: s.StartAtLogin, RepoSyncService: s.RepoSyncService,
		},
	}
	if s.Paused {
		snap.State = status.StateStopped
	}
	roots, err := e.store.Roots()
	if err != nil {
		e.log.Warn("read roots", "err", err)
	}
	snap.Frontier.Roots = nonNil(roots)
	snap.Frontier.SessionRoots = []string{}
	snap.Frontier.ByDepth = []int{}
	snap.Frontier.Truncation = []status.Truncation{}
	snap.Heap.NodeLimit, snap.Heap.EdgeLimit = s.Limits.HeapNodeLimit, s.Limits.HeapEdgeLimit
	return snap
}

func (e *Engine) relayStatus() []status.Relay {
	urls, err := e.store.Relays()
	if err != nil {
		e.log.Warn("read relays", "err", err)
	}
	out := make([]status.Relay, 0, len(urls))
	for _, u := range urls {
		r := status.Relay{URL: u, Health: status.HealthHealthy, State: status.StateIdle}
		if h, ok, err := e.store.RelayHealth(u); err == nil && ok {
			r.Health = h.State
			r.LastSuccess = h.LastSuccessAt
			r.EventsFetched = h.EventsFetched
			r.OldestReached, r.NewestReached = h.OldestReached, h.NewestReached
			r.Failures = h.ConsecutiveFailures
			r.NextRetry = h.NextRetryAt
			r.LastError = h.LastError
		}
		out = append(out, r)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
