package engine

import (
	"slices"
	"strings"

	"dtp-personal/engine/status"
	"dtp-personal/engine/trustsync"
)

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
		LastSync:        lastSync(sy),
		NextSync:        sy.NextSync,
		Relays:          sy.Relays,
		Frontier:        e.frontierStatus(),
		Heap:            e.trust.heap.Stats(),
		Store:           e.storeStatus(),
		Progress:        sy.Progress,
		Ingest:          e.stats.snapshot(e.ingest.Duplicates()),
		Listen:          e.ListenAddr(),
		Settings:        s,
		RestartNeeded:   e.pendingRestart(),
		RepoSync:        e.repos.Status(),
		Newcomers:       status.Newcomers{Fetching: sy.Fetching, NotYetFetched: sy.NotYetFetched},
	}
	switch {
	case e.diskFull.Load():
		snap.State = status.StateError // coverage names disk-full
	case s.Paused:
		snap.State = status.StateStopped
	}
	return snap
}

// lastSync is when the last pass that could sync ran: a pass with no relay
// to sync from fetched nothing, so until one ran with a relay the status
// says never (the runner counts it as a pass: it settles the coverage).
func lastSync(sy trustsync.Status) int64 {
	if slices.Equal(sy.Coverage.Reasons, []string{status.ReasonNoRelays}) {
		return 0
	}
	return sy.LastSync
}

// heldReasons are the last pass's coverage reasons that still hold now:
// what the user has dealt with since (a relay added, a failed relay removed)
// is not reported until the next pass says it again. Once a relay is
// configured, "no relays" becomes "never synced" until a pass ran with one.
// Status, the HTTP API, the resolver's answers and the window all take the
// reasons from here (through SyncCoverage).
func heldReasons(reasons, relays []string, lastSync int64) []string {
	held := make([]string, 0, len(reasons))
	for _, r := range reasons {
		switch {
		case r == status.ReasonNoRelays && len(relays) > 0:
			if lastSync == 0 {
				held = append(held, status.ReasonNeverSynced)
			}
			continue
		case r == status.ReasonNeverSynced && lastSync != 0,
			r == status.ReasonSyncRunning: // the running pass is added by SyncCoverage
			continue
		}
		if url, ok := strings.CutPrefix(r, status.RelayFailed("")); ok && !slices.Contains(relays, url) {
			continue
		}
		held = append(held, r)
	}
	return held
}

// coverage is the overall coverage: the sync's reasons plus what the trust
// side knows (frontier truncated, heap at a limit).
func (e *Engine) coverage(syncReasons []string) status.Coverage {
	reasons := slices.Clone(syncReasons)
	if len(e.frontierStatus().Truncation) > 0 {
		reasons = append(reasons, status.ReasonFrontierTruncated)
	}
	if e.trust.heap.Stats().LimitReason != "" {
		reasons = append(reasons, status.ReasonHeapLimit)
	}
	return status.NotYetFetched(status.NewCoverage(reasons...), len(e.sync.NotYetFetched()))
}

// storeStatus is the database's size on disk and its log's bound.
func (e *Engine) storeStatus() status.Store {
	w := e.store.WAL()
	return status.Store{DatabaseBytes: e.store.Size(), WALBytes: w.Bytes, WALPeakBytes: w.PeakBytes,
		WALLimitBytes: w.Limit, WALResets: w.Resets, WALResetsBlocked: w.Blocked}
}
