package engine

import (
	"slices"

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
	if sy.State == status.StateRunning {
		snap.Progress.Stored = e.stats.passStored()
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
