package engine

import (
	"slices"

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
	sy := e.sync.Status()
	snap := status.Snapshot{
		Strategy:        s.Strategy,
		IntervalMinutes: s.IntervalMinutes,
		Paused:          s.Paused,
		State:           sy.State,
		Coverage:        e.coverage(e.SyncCoverage()),
		LastSync:        sy.LastSync,
		NextSync:        sy.NextSync,
		Relays:          e.relayStatus(sy.Relays),
		Frontier:        e.trust.frontier.Status(),
		Heap:            e.trust.heap.Stats(),
		Progress:        sy.Progress,
		Ingest:          e.stats.snapshot(e.ingest.Duplicates()),
		Settings:        s,
	}
	if s.Paused {
		snap.State = status.StateStopped
	}
	return snap
}

// coverage is the overall coverage: the sync's reasons plus what the trust
// side knows (frontier truncated, heap at a limit).
func (e *Engine) coverage(syncReasons []string) status.Coverage {
	reasons := slices.Clone(syncReasons)
	if len(e.trust.frontier.Status().Truncation) > 0 {
		reasons = append(reasons, status.ReasonFrontierTruncated)
	}
	if e.trust.heap.Stats().LimitReason != "" {
		reasons = append(reasons, status.ReasonHeapLimit)
	}
	return status.NewCoverage(reasons...)
}

// relayStatus lists every configured relay: live figures from the sync for
// the relays it has touched, stored health for the others.
func (e *Engine) relayStatus(live []status.Relay) []status.Relay {
	urls, err := e.store.Relays()
	if err != nil {
		e.log.Warn("read relays", "err", err)
	}
	out := make([]status.Relay, 0, len(urls))
	for _, u := range urls {
		if i := slices.IndexFunc(live, func(r status.Relay) bool { return r.URL == u }); i >= 0 {
			out = append(out, live[i])
			continue
		}
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
