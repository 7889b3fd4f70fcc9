// Package engine wires the embedded sync/ingest engine together: store,
// ingest pipeline, heap, frontier, resolver, both sync profiles and server
// (docs/ARCHITECTURE.md). The CLI and the desktop UI run it through Engine:
// they read Status, Subscribe and call commands. They also import other
// engine packages for their types and rules (settings, status, resolver,
// heap, ingest, validation), and the CLI's settings commands change settings
// with settings.Modify on a store.Store of their own, which a running engine
// notices through the store's revision. It imports no GUI code.
package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/metrics"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/trustsync"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/owneronly"
)

// Version is the product version reported by NIP-11 and the CLI.
const Version = "0.1.0"

// Options configure Open.
type Options struct {
	DataDir string
	// Listen overrides the stored listen address for this run when not empty.
	Listen string
	Logger *slog.Logger
	// Ingest sizes the pipeline; zero values take its defaults.
	Ingest ingest.Config
	// ServerLimits override the server's limits (tests): zero takes
	// server.DefaultLimits, with the queue budgets and the tag cap from the
	// user's settings. A non-zero struct gives the fixed limits, and each of
	// those three where it is not zero, in place of the user's setting.
	ServerLimits server.Limits
	// Timers a test shortens so it does not wait them out; zero = production.
	FrontierDebounce time.Duration // frontier recompute after a change (frontier.DefaultDebounce, 1 s)
	RepoWindow       time.Duration // repository sync's self-subscriber window (5 s)
	PruneInterval    time.Duration // automatic prune rounds (a minute after the start, then hourly)
	// SyncAfter, when not nil, holds the sync loops (trust and repository)
	// back until it is closed; the server answers meanwhile. The desktop app
	// lets its window paint and build its pages first, with the cores to
	// itself (BenchmarkGUILagDuringSync), then syncs.
	SyncAfter <-chan struct{}
	// ReadOnly opens the engine for reading only (status, resolve with no
	// server running): it takes no data directory lock, so it never keeps a
	// server from starting, and it writes nothing (no NIP-42 key, no cursor
	// clean-up); Serve, Import and SyncOnce refuse (ErrReadOnly).
	ReadOnly bool
	// Serving says the caller will Serve: the start then makes the walks of
	// a question in the scope profile beside the frontier's (Resolver.Warm),
	// which a command that asks nothing would spend a core on.
	Serving bool
}

// Engine is one running engine on one data directory.
type Engine struct {
	opts    Options
	log     *slog.Logger
	lock    *dirLock
	store   *store.Store
	ingest  *ingest.Pipeline
	server  *server.Server
	metrics *metrics.Registry
	stats   *ingestStats
	trust   trust
	sync    *trustsync.Runner
	repos   *reposync.Syncer
	authKey string // NIP-42 key of this data directory; never used to publish
	// heapLoaded is the key of the heap snapshot this run started from, ""
	// when the heap was built from the database (saveHeap).
	heapLoaded     string
	heapSeenLoaded bool        // the snapshot held the pipeline's held-ids filter
	walkLoaded     []byte      // the frontier's walk the snapshot held (frontier.Tracker.Saved), nil when none
	walkAdopted    bool        // the frontier started from walkLoaded
	heapLimits     status.Heap // the heap's guardrails when it was opened
	// ownerToken is new at each Open and written to running.json, which only
	// the data directory's owner can read: a connection that presents it is
	// that user's own CLI (see server.Config.OwnerToken).
	ownerToken string

	diskFull      atomic.Bool       // sync paused: the last write found no room (watchStorage)
	hintsNext     atomic.Int64      // when the hinted pubkeys the sync last read may change (syncFrontier.HintedPubkeys), 0 = never
	heapRefill    chan struct{}     // a heap guardrail was raised: take in what it refused (refillHeap)
	settingsParts []settingsPart    // handed every settings change (registerSettingsParts)
	started       settings.Settings // as loaded by Open: what fixedAtStart settings run with

	applyMu  sync.Mutex // one settings reload and apply at a time
	mu       sync.Mutex
	settings settings.Settings
	revision int64
	subs     map[int]func(status.Snapshot)
	nextSub  int
	listen   string
	closed   bool // Serve refuses to start once Close began

	changed    chan struct{} // something in the status changed: tell subscribers
	publishing sync.Mutex    // held while a snapshot is handed to subscribers

	// Close cancels ctx, which ends Serve and its loops, and waits for Serve
	// (counted in serving) before it closes the pipeline and the store.
	ctx       context.Context
	cancel    context.CancelFunc
	serving   sync.WaitGroup
	closeOnce sync.Once
}

// ErrClosed is returned by Serve on a closed engine.
var ErrClosed = errors.New("engine closed")

// ErrReadOnly is returned by the commands that write or serve, on an engine
// opened with Options.ReadOnly.
var ErrReadOnly = errors.New("engine opened read-only")

// Open takes the data directory's lock, opens its database and builds the
// engine. Only one engine may hold a data directory: a second Open returns
// ErrAlreadyRunning (after lockWait, in case the holder is only a command
// looking for a server). With Options.ReadOnly it takes no lock.
func Open(opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	clock := newStartClock()
	lock, st, err := openStore(opts)
	if err != nil {
		return nil, err
	}
	clock.lap("store")
	e := &Engine{
		opts: opts, log: opts.Logger, lock: lock, store: st,
		metrics:    metrics.New(),
		subs:       make(map[int]func(status.Snapshot)),
		changed:    make(chan struct{}, 1),
		heapRefill: make(chan struct{}, 1),
		ownerToken: rand.Text(),
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if err := e.openParts(clock); err != nil {
		return nil, e.failOpen(err)
	}
	clock.lap("check")
	e.log.Info("opened", clock.attrs()...)
	return e, nil
}

func (opts Options) withDefaults() Options {
	if opts.DataDir == "" {
		opts.DataDir = DefaultDataDir()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return opts
}

// openStore takes the data directory's lock (none when read-only) and opens
// its database, whose start-up check it starts.
func openStore(opts Options) (*dirLock, *store.Store, error) {
	if err := owneronly.MkdirAll(opts.DataDir); err != nil {
		return nil, nil, fmt.Errorf("data directory: %w", err)
	}
	var lock *dirLock
	if !opts.ReadOnly {
		var err error
		if lock, err = lockDataDirWaiting(opts.DataDir); err != nil {
			return nil, nil, err
		}
	}
	st, err := store.Open(DatabasePath(opts.DataDir))
	if err != nil {
		lock.release()
		return nil, nil, err
	}
	// The check reads the whole file (seconds at a million events), so it
	// runs beside the rest of the start, which reads; a write waits for it
	// to pass (see openParts for how long Open does).
	st.StartCheck(quickCheckLimit, !opts.ReadOnly)
	return lock, st, nil
}

// openParts builds the engine's parts over its opened store, in the order
// of ARCHITECTURE.md's "Start-up order": each part exists before the first
// that uses it. It returns once the store's start-up check passed, or after
// openCheckWait with the check still running.
func (e *Engine) openParts(clock *startClock) error {
	var err error
	// the revision first: a change made meanwhile is then seen by the watcher
	if e.revision, err = e.store.Revision(); err != nil {
		return err
	}
	if e.settings, err = settings.Load(e.store); err != nil {
		return err
	}
	e.started = e.settings
	if err := e.store.SetWALLimit(walLimit(e.settings.Limits)); err != nil {
		return err
	}
	h, seen, err := e.openHeap(e.settings.Limits, clock)
	if err != nil {
		return err
	}
	e.stats = newIngestStats(e.metrics)
	if e.authKey, err = loadAuthKey(e.store, !e.opts.ReadOnly); err != nil {
		return err
	}
	if err := e.openRepoSync(); err != nil {
		return err
	}
	clock.lap("reposync")
	ingestCfg := e.opts.Ingest
	ingestCfg.SeenFilter = seen
	if e.ingest, err = ingest.New(e.store, e.eventRules(), validation.VerifyEvent, ingestCfg); err != nil {
		return err
	}
	clock.lap("ingest")
	e.ingest.OnReject(e.stats.rejected)
	e.ingest.OnReject(e.repos.Rejected)
	e.ingest.OnCommit(e.stats.committed)
	e.buildTrust(h, clock)
	// the self-subscriber: every committed event, pulled or pushed; after the
	// heap's listener, since a deletion it carries out may remove a trust
	// event of the same batch
	e.ingest.OnCommit(func(c ingest.Committed) { e.repos.Committed(c.Stored) })
	e.sync = e.newSyncRunner()
	// a walk taken from the snapshot is the one the last run closed with:
	// nobody left the frontier while stopped (a change to the database or
	// the settings would have refused it), and the run kept the cursors to
	// its frontier as people left
	if !e.opts.ReadOnly && !e.walkAdopted {
		e.sync.ReconcileCursors(e.trust.frontier.Current().Pubkeys())
	}
	clock.lap("cursors")
	e.registerMetrics()
	e.registerRepoMetrics()
	e.server = e.newServer()
	e.ingest.OnCommit(func(c ingest.Committed) {
		e.server.Broadcast(c.Stored)
		e.notify()
	})
	e.registerSettingsParts()
	clock.lap("server")
	// A small file's check ends here and its damage is Open's error; a
	// large one's goes on beside the first answers (they read, and the
	// heap came from a snapshot or a whole read of the file), its writes
	// wait for it, and Serve stops with what it finds.
	if openCheckWait > 0 {
		select {
		case <-e.store.CheckDone():
			return e.store.Checked()
		case <-time.After(openCheckWait):
		}
	}
	return nil
}

// newServer is the listener's part over the engine's ports; the settings
// it reads at each request or connection come through the engine.
func (e *Engine) newServer() *server.Server {
	return server.New(server.Config{
		Ingest:      e.ingest,
		Events:      e.store,
		Resolver:    resolverPort{e},
		Sessions:    e,
		SyncNow:     e.SyncNow,
		Maintenance: maintenancePort{e},
		Status:      statusDocument{e},
		Metrics:     e.metrics,
		Limits:      e.serverLimits(e.settings.Limits),
		OwnerToken:  e.ownerToken,
		Connections: func() (int, int) {
			l := e.Settings().Limits
			return l.MaxConnections, l.MaxConnectionsPerAddress
		},
		Access: func() server.Access {
			s := e.Settings()
			return server.Access{AllowLAN: s.AllowLAN, Hosts: s.AllowedHosts, Origins: s.AllowedOrigins, Proxies: s.TrustedProxies}
		},
		Info: server.Info{
			Name: "dtp-personal", Software: "dtp-personal", Version: Version,
			Description: "Personal DTP web-of-trust server: a local, verified copy of the trust events that matter to its user.",
		},
	})
}

// quickCheckLimit bounds the start-up check of the database: a large file
// is checked in part rather than delaying the start (a million events take
// over 4 s of CPU to check whole; `db check` does).
const quickCheckLimit = 2 * time.Second

// openCheckWait is how long Open waits for that check before it returns
// and lets it finish in the background: the start to the first answer at a
// million events is meant to take under 2 s (issue 26), all of which the
// check alone would take.
var openCheckWait = 250 * time.Millisecond

// Submit pushes one event through the ingest pipeline and waits for it.
func (e *Engine) Submit(ctx context.Context, ev *nostr.Event, source string) (ingest.Result, error) {
	return e.ingest.SubmitWait(ctx, ev, source)
}

// Serve listens on the configured address and runs the background work
// (settings watcher, status publisher, frontier, sync) until ctx ends or
// Close is called; then it stops cleanly.
func (e *Engine) Serve(ctx context.Context) error {
	if e.opts.ReadOnly {
		return ErrReadOnly
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return ErrClosed
	}
	e.serving.Add(1)
	e.mu.Unlock()
	defer e.serving.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopOnClose := context.AfterFunc(e.ctx, cancel)
	defer stopOnClose()

	addr := e.opts.Listen
	if addr == "" {
		addr = e.Settings().Listen
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	// running.json first: a caller that sees ListenAddr finds it (the CLI's
	// owner token is read from it).
	if err := writeRunning(e.opts.DataDir, Running{PID: os.Getpid(), Listen: ln.Addr().String(), Token: e.ownerToken}); err != nil {
		ln.Close()
		return fmt.Errorf("record running server: %w", err)
	}
	defer os.Remove(runningPath(e.opts.DataDir))
	e.mu.Lock()
	e.listen = ln.Addr().String()
	e.mu.Unlock()
	httpSrv := &http.Server{Handler: e.server, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: e.server.Limits().HTTPIdleTimeout}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	e.log.Info("serving", "listen", e.listen, "data", e.opts.DataDir)

	var loops sync.WaitGroup
	loops.Go(func() { e.watchSettings(ctx) })
	loops.Go(func() { e.publishStatus(ctx) })
	loops.Go(func() { e.watchStorage(ctx) })
	loops.Go(func() { e.trust.frontier.Run(ctx) })
	loops.Go(func() { e.refillHeap(ctx) })
	loops.Go(func() { e.autoPrune(ctx) })
	loops.Go(func() {
		if e.syncMayStart(ctx) {
			e.repos.Run(ctx)
		}
	})
	loops.Go(func() {
		if !e.syncMayStart(ctx) {
			return
		}
		if err := e.sync.Run(ctx); err != nil && ctx.Err() == nil {
			e.log.Error("sync stopped", "err", err)
		}
	})

	select {
	case <-ctx.Done():
	case err = <-served:
	case <-e.store.CheckDone():
		// the start-up check found damage after Open returned: nothing
		// more is written, and the caller learns why
		if err = e.store.Checked(); err != nil {
			e.log.Error("database damaged; stopping", "err", err)
			break
		}
		select {
		case <-ctx.Done():
		case err = <-served:
		}
	}
	cancel() // the loops end with the server, whichever ended first
	shutdownCtx, cancelShutdown := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelShutdown()
	e.server.CloseAll()
	_ = httpSrv.Shutdown(shutdownCtx)
	loops.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// syncMayStart waits until Options.SyncAfter lets the sync loops start; it
// reports false when ctx ended first.
func (e *Engine) syncMayStart(ctx context.Context) bool {
	if e.opts.SyncAfter == nil {
		return true
	}
	select {
	case <-e.opts.SyncAfter:
		return true
	case <-ctx.Done():
		return false
	}
}

// ListenAddr is the address the server bound, "" before Serve.
func (e *Engine) ListenAddr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.listen
}

// Close ends Serve, if it runs, and waits for it and its loops; then it
// stops the pipeline (answering everything queued), closes the database and
// releases the data directory. Later calls do nothing.
func (e *Engine) Close() error {
	var err error
	e.closeOnce.Do(func() {
		// Logged at both ends: a process that hangs on its way out says
		// which side of the engine it hangs on.
		start := time.Now()
		e.log.Info("closing")
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
		e.cancel()
		e.serving.Wait()
		if e.ingest != nil {
			e.ingest.Close()
			e.saveHeap()
		}
		err = e.closeStore()
		e.log.Info("closed", "took", time.Since(start).Round(time.Millisecond), "err", err)
	})
	return err
}

// failOpen closes what Open opened, as Close does (the parts not yet made
// are nil), and returns why it failed: the start-up check's finding when it
// found damage (a read of a damaged file fails first, with less to say).
func (e *Engine) failOpen(err error) error {
	if damaged := e.store.Checked(); damaged != nil {
		err = damaged
	}
	e.Close()
	return err
}

func (e *Engine) closeStore() error {
	err := e.store.Close()
	e.lock.release()
	return err
}

// MappedBytes is the size of the heap snapshot the trust graph lies in,
// resident beside the Go heap (heap.MappedBytes); 0 when it was built.
func (e *Engine) MappedBytes() int64 { return e.trust.heap.MappedBytes() }

// Settings returns the current settings.
func (e *Engine) Settings() settings.Settings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.settings
}

// watchSettings notices settings written by any process (CLI, UI) through
// the store's revision counter and applies them within a second.
func (e *Engine) watchSettings(ctx context.Context) {
	every(ctx, 500*time.Millisecond, func() {
		if err := e.reloadSettings(); err != nil {
			e.log.Warn("reload settings", "err", err)
		}
	})
}

// every runs fn at each tick of d until ctx ends.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn()
	}
}

// reloadSettings reads the settings again if their revision moved and hands
// the parts that act on them the old and the new settings.
func (e *Engine) reloadSettings() error {
	e.applyMu.Lock()
	defer e.applyMu.Unlock()
	rev, err := e.store.Revision()
	if err != nil {
		return err
	}
	e.mu.Lock()
	from, same := e.settings, rev == e.revision
	e.mu.Unlock()
	if same {
		return nil
	}
	to, err := settings.Load(e.store)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.settings, e.revision = to, rev
	e.mu.Unlock()
	e.commitSettings(from, to)
	e.notify()
	return nil
}

// notify marks the status as changed; publishStatus coalesces bursts.
func (e *Engine) notify() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

// Subscribe registers fn for status snapshots while Serve runs: the latest
// one, at most four a second while something changes and one a second
// otherwise, one call at a time. A subscriber may thin them further (the
// desktop window renders at most two a second); fn should hand the snapshot
// on and return, and it must not call cancel. Once cancel returns, fn is not
// called again.
func (e *Engine) Subscribe(fn func(status.Snapshot)) (cancel func()) {
	e.mu.Lock()
	id := e.nextSub
	e.nextSub++
	e.subs[id] = fn
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		delete(e.subs, id)
		e.mu.Unlock()
		e.publishing.Lock() // wait out a delivery that may still hold fn
		e.publishing.Unlock()
	}
}

// publishStatus is the status coalescer: bursts of notify become one
// snapshot per quarter second.
func (e *Engine) publishStatus(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.changed:
		case <-tick.C:
		}
		e.publish()
		// at most four snapshots a second, however busy ingest is
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// publish hands one snapshot to every subscriber.
func (e *Engine) publish() {
	e.publishing.Lock()
	defer e.publishing.Unlock()
	e.mu.Lock()
	subs := slices.Collect(maps.Values(e.subs))
	e.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	snap := e.Status()
	for _, fn := range subs {
		fn(snap)
	}
}
