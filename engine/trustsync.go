package engine

import (
	"context"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/trustsync"
)

// Facts the engine records about itself, in the store's state table: they
// are not settings, so writing them does not bump the settings revision.
const (
	stateAuthKey  = "authKey"
	stateLastPass = "lastPass" // outcome of the last sync pass, JSON
)

// newSyncRunner adapts the engine's parts to the sync ports.
func (e *Engine) newSyncRunner() *trustsync.Runner {
	var last *trustsync.PassOutcome
	if rec := readPassRecord(e.store, e.log); rec != nil {
		last = &rec.PassOutcome
	}
	return trustsync.New(trustsync.Config{
		Store:    e.store,
		Sink:     ingest.RelaySink{Pipeline: e.ingest, Prefix: syncSource},
		Frontier: syncFrontier{e},
		Settings: e.Settings(),
		AuthKey:  e.authKey,
		Log:      e.log.With("part", "sync"),
		LastPass: last,
		OnPassFinished: func(o trustsync.PassOutcome) {
			rec := passRecord{PassOutcome: o}
			if o.Settled != nil {
				rec.Graph = e.settledGraph(o.Coverage)
			}
			writePassRecord(e.store, e.log, rec)
		},
	})
}

// loadAuthKey returns the data directory's NIP-42 key, generating it on
// first use when create is set (a read-only engine syncs nothing). The server has no identity of its own: this key only answers
// relays that ask for AUTH before serving reads.
func loadAuthKey(st *store.Store, create bool) (string, error) {
	if k, ok, err := st.State(stateAuthKey); err != nil || ok || !create {
		return k, err
	}
	k := nostr.GeneratePrivateKey()
	return k, st.SetState(stateAuthKey, k)
}

// syncFrontier is the frontier as the sync sees it.
type syncFrontier struct{ e *Engine }

func (f syncFrontier) Authors() []string           { return f.e.trust.frontier.Current().Pubkeys() }
func (f syncFrontier) DiscoverySubjects() []string { return f.e.trust.heap.DiscoverySubjects() }
func (f syncFrontier) ClaimCandidates() []string   { return f.e.trust.heap.ClaimCandidates() }

// HintedPubkeys are the pubkeys the current frontier's hints can bind; when
// that set may next change is kept for the pass's record (settledGraph).
func (f syncFrontier) HintedPubkeys() []string {
	fr := f.e.trust.frontier.Current()
	var out []string
	f.e.trust.heap.View(func(v heap.View) {
		var next int64
		out, next = v.HintedPubkeys(time.Now().Unix(), func(n heap.NodeID) bool { _, ok := fr.NodeDepth(n); return ok })
		f.e.hintsNext.Store(next)
	})
	return out
}

// ClaimsFetched records the fact in the store first: the heap only caches
// what the store can rebuild after a restart.
func (f syncFrontier) ClaimsFetched(pubkeys []string) {
	if err := f.e.store.RecordClaimsFetched(pubkeys, time.Now().Unix()); err != nil {
		f.e.log.Warn("record fetched claims", "err", err)
		return
	}
	f.e.trust.heap.ClaimsFetched(pubkeys)
	f.e.trust.frontier.Notify() // a binding may have changed: the next Refresh walks
}
func (f syncFrontier) Changed() <-chan struct{} { return f.e.trust.frontier.Changed() }

func (f syncFrontier) Refresh(ctx context.Context) error {
	f.e.trust.frontier.Refresh()
	return ctx.Err()
}

// SyncCoverage is what the sync knows about coverage, for the resolver and
// the status alike: the last pass's reasons that still hold, the running
// pass, a full disk.
func (e *Engine) SyncCoverage() []string {
	st := e.sync.Status()
	reasons := heldReasons(st.Coverage.Reasons, e.Settings().Relays, lastSync(st))
	if st.State == status.StateRunning {
		reasons = append(reasons, status.ReasonSyncRunning)
	}
	if e.diskFull.Load() {
		reasons = append(reasons, status.ReasonDiskFull)
	}
	return reasons
}

// NotYetFetched are the frontier members whose history no relay has given
// yet, and whether the frontier is behind the heap, for the resolver's
// coverage. With no relay configured the coverage says no-relays instead.
func (e *Engine) NotYetFetched() ([]string, bool) {
	members := e.sync.NotYetFetched()
	return members, e.trust.frontier.Stale() && e.sync.HasRelays()
}

// SyncNow asks for a sync pass now.
func (e *Engine) SyncNow() error {
	e.sync.SyncNow()
	return nil
}

// SyncProgress is the running pass's progress (Status().Progress, without
// the rest of the status).
func (e *Engine) SyncProgress() status.Progress { return e.sync.Progress() }

// SyncOnce runs one frontier pass in this process and returns the coverage
// it reached, including a frontier cut by its caps.
func (e *Engine) SyncOnce(ctx context.Context) (status.Coverage, error) {
	if e.opts.ReadOnly {
		return status.Coverage{}, ErrReadOnly
	}
	cov, err := e.sync.RunOnce(ctx)
	if err != nil {
		return cov, err
	}
	return e.coverage(cov.Reasons), nil
}
