package engine

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/trustsync"
)

// passRecord is the last pass as the store keeps it (stateLastPass): its
// outcome and, when it settled (trustsync.Settled), the graph it settled
// on. A record of an earlier version, without the graph, reads as a pass
// that did not settle.
type passRecord struct {
	trustsync.PassOutcome
	Graph *settledGraph `json:"graph,omitempty"`
}

// settledGraph is what a settled pass's walk rested on: while the trust
// data, the settings walked and the windows of hops and hints are as they
// were, a pass that finds nothing new on the relays walks to the same
// frontier and ends with the same coverage, so SyncSettled can make it
// without the graph.
type settledGraph struct {
	Generation int64           `json:"generation"` // of the trust data (store.HeapState): every change moves it
	Settings   string          `json:"settings"`   // walkedSettings
	NextChange int64           `json:"nextChange"` // unix seconds a window of a hop or of a hint next opens or closes; 0 = never
	Coverage   status.Coverage `json:"coverage"`   // as SyncOnce answered, the frontier's and the heap's reasons with the pass's
}

// walkedSettings are the settings a frontier pass depends on, as one string.
func walkedSettings(s settings.Settings) string {
	b, _ := json.Marshal(struct {
		Roots, Relays []string
		Limits        settings.Limits
		ScopeProfile  string
	}{s.Roots, s.Relays, s.Limits, s.ScopeProfile})
	return string(b)
}

// settledGraph is the graph a pass that just settled rests on (reasons are
// its coverage's), nil when it cannot stand for the next pass: a change
// waits for the frontier's walk, or the heap is at a guardrail (walks then
// freeze to the one before).
func (e *Engine) settledGraph(pass status.Coverage) *settledGraph {
	fr := e.trust.frontier
	if fr.Stale() || e.trust.heap.Stats().LimitReason != "" {
		return nil
	}
	_, generation, err := e.store.HeapState()
	if err != nil {
		return nil
	}
	next := fr.Current().NextChange
	if hints := e.hintsNext.Load(); hints != 0 && (next == 0 || hints < next) {
		next = hints // the claims a pass refreshes change then
	}
	return &settledGraph{Generation: generation, Settings: walkedSettings(e.Settings()),
		NextChange: next, Coverage: e.coverage(pass.Reasons)}
}

func readPassRecord(st *store.Store, log *slog.Logger) *passRecord {
	v, ok, err := st.State(stateLastPass)
	if err != nil {
		log.Warn("read last sync pass", "err", err)
		return nil
	}
	if !ok {
		return nil
	}
	rec := new(passRecord)
	if err := json.Unmarshal([]byte(v), rec); err != nil {
		log.Warn("last sync pass record does not parse; treating as never synced", "err", err)
		return nil
	}
	return rec
}

func writePassRecord(st *store.Store, log *slog.Logger, rec passRecord) {
	b, _ := json.Marshal(rec)
	if err := st.SetState(stateLastPass, string(b)); err != nil {
		log.Warn("record sync pass", "err", err)
	}
}

// SyncSettled is `sync --once` without the trust graph, for when the last
// pass settled and nothing it rested on moved since: the same UTC day, the
// same trust data, settings and relays, no window of a hop or a hint opened
// or closed. It then asks each relay that pass's window probes only, and
// when none holds an event new to us it records the pass and returns its
// coverage, with done set. Otherwise (done false) it recorded nothing, and
// the caller opens the engine and runs SyncOnce. It takes the data
// directory's lock as Open does (ErrAlreadyRunning while an engine holds it).
func SyncSettled(ctx context.Context, opts Options) (cov status.Coverage, done bool, err error) {
	opts = opts.withDefaults()
	if opts.ReadOnly {
		return cov, false, ErrReadOnly
	}
	lock, st, err := openStore(opts)
	if err != nil {
		return cov, false, err
	}
	defer func() {
		err = errors.Join(err, st.Close())
		lock.release()
	}()
	rec := readPassRecord(st, opts.Logger)
	if rec == nil || rec.Settled == nil || rec.Graph == nil {
		return cov, false, nil
	}
	if rec.Graph.NextChange != 0 && time.Now().Unix() >= rec.Graph.NextChange {
		return cov, false, nil
	}
	if _, generation, err := st.HeapState(); err != nil || generation != rec.Graph.Generation {
		return cov, false, err
	}
	s, err := settings.Load(st)
	if err != nil || walkedSettings(s) != rec.Graph.Settings {
		return cov, false, err
	}
	authKey, err := loadAuthKey(st, true)
	if err != nil {
		return cov, false, err
	}
	graph := rec.Graph
	runner := trustsync.New(trustsync.Config{
		Store: st, Settings: s, AuthKey: authKey, Log: opts.Logger.With("part", "sync"), LastPass: &rec.PassOutcome,
		OnPassFinished: func(o trustsync.PassOutcome) {
			writePassRecord(st, opts.Logger, passRecord{PassOutcome: o, Graph: graph})
		},
	})
	if done, err = runner.PassSettled(ctx); !done || err != nil {
		return cov, false, err
	}
	return graph.Coverage, true, nil
}
