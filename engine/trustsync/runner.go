package trustsync

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
	"dtp-personal/engine/relay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Config wires a Runner. Zero values take the defaults.
type Config struct {
	Store    Store
	Sink     Sink
	Frontier Frontier
	// Settings are the settings at start; changes come through
	// ApplySettings.
	Settings settings.Settings
	AuthKey  string // hex secret key for NIP-42, generated once per data directory

	Clock       clock.Clock      // default: the wall clock
	Log         *slog.Logger     // default: slog.Default()
	Parallel    int              // REQs in flight per relay during a pass when it publishes no max_subscriptions; default 4
	Live        relay.LiveTuning // live queue and ingest batch, as repository sync's
	Resubscribe time.Duration    // live trailing debounce: quiet time after a frontier change; default 1.5 s

	// LastPass is the outcome of the last pass of an earlier run (nil:
	// never synced), so coverage survives a restart.
	LastPass *PassOutcome
	// OnPassFinished records each finished pass's outcome durably.
	OnPassFinished func(PassOutcome)
}

// PassOutcome is what a finished pass reached.
type PassOutcome struct {
	At       int64           `json:"at"` // unix seconds
	Coverage status.Coverage `json:"coverage"`
	// Settled is set when the pass settled (see Settled).
	Settled *Settled `json:"settled,omitempty"`
}

// Runner runs the active strategy and answers status and metrics.
type Runner struct {
	cfg     Config
	metrics metrics
	syncNow chan struct{}
	restart chan struct{} // the strategy, its interval or the pause changed
	passMu  sync.Mutex    // one pass at a time

	links *relay.Links

	newcomers  *newcomers    // frontier members no relay has given yet
	outsiders  outsidersSeen // what window probes fetched for nobody in the network
	nudge      chan struct{} // commits may name new X accounts or claims
	passed     chan struct{} // closed when the first pass ends without an error
	passedOnce sync.Once

	mu         sync.Mutex
	running    *pass             // the pass running, nil between passes
	settings   settings.Settings // as last applied
	diskFull   bool              // Pause: nothing syncs while the disk is full
	live       *live             // the live strategy's sessions while it runs
	relayState map[string]string
	relayProg  map[string]status.Progress // per relay, during a pass
	st         Status
}

// Status is the sync part of the engine's status snapshot.
type Status struct {
	Strategy        string
	IntervalMinutes int
	Paused          bool
	State           string // status.State…
	Coverage        status.Coverage
	LastSync        int64 // unix seconds of the last finished pass, 0 = never
	NextSync        int64 // unix seconds of the next scheduled pass, 0 = none
	Progress        status.Progress
	Relays          []status.Relay // every configured relay
	// Fetching is how many people new to the network are being fetched
	// now, between passes; NotYetFetched how many frontier members no
	// relay has given their history yet.
	Fetching      int
	NotYetFetched int
	// EventCaps are the event caps (maxEvents, maxRatingEvents,
	// maxDiscoveryEvents) that cut the last pass, with the number of authors
	// or subjects left unfetched; the frontier's own cuts are its walk's.
	EventCaps []status.Truncation
}

// New makes a Runner; nothing runs until Run, Pass or RunOnce.
func New(cfg Config) *Runner {
	if cfg.Clock == nil {
		cfg.Clock = clock.Wall{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.Resubscribe <= 0 {
		cfg.Resubscribe = 1500 * time.Millisecond
	}
	st := Status{State: status.StateIdle, Coverage: status.NewCoverage(status.ReasonNeverSynced)}
	// what Run will run, shown before it starts (see engine.Options.SyncAfter)
	st.Strategy, st.IntervalMinutes, st.Paused = cfg.Settings.Strategy, cfg.Settings.IntervalMinutes, cfg.Settings.Paused
	if last := cfg.LastPass; last != nil {
		st.LastSync, st.Coverage = last.At, last.Coverage
	}
	r := &Runner{
		cfg: cfg, metrics: metrics{relays: map[string]*relayCounters{}}, syncNow: make(chan struct{}, 1),
		restart: make(chan struct{}, 1), settings: cfg.Settings,
		relayState: map[string]string{}, relayProg: map[string]status.Progress{}, st: st,
		newcomers: newNewcomers(), nudge: make(chan struct{}, 1), passed: make(chan struct{}),
	}
	r.cfg.Store = watchedStore{cfg.Store, r.newcomers}
	r.links = relay.NewLinks(cfg.Store, health.ProfileTrust, relay.OptionsFor(cfg.AuthKey, r.pageTimeout, cfg.Log), cfg.Clock, cfg.Log)
	r.TrackRelays()
	return r
}

// RunOnce runs one manual frontier pass (`sync --once`) and returns its
// coverage: exit 0 when complete, 3 when partial, 1 on error.
func (r *Runner) RunOnce(ctx context.Context) (status.Coverage, error) {
	return r.Pass(ctx, true)
}

// SyncNow asks the running strategy for a pass as soon as possible.
func (r *Runner) SyncNow() {
	select {
	case r.syncNow <- struct{}{}:
	default:
	}
}

// Run runs the configured strategy until ctx ends, starting it again when
// ApplySettings or Pause changes it.
func (r *Runner) Run(ctx context.Context) error {
	var watcher sync.WaitGroup
	defer watcher.Wait()
	watcher.Go(func() { r.watchNewcomers(ctx) })
	for {
		r.mu.Lock()
		id, interval, paused := r.settings.Strategy, r.settings.IntervalMinutes, r.settings.Paused || r.diskFull
		r.st.Strategy, r.st.IntervalMinutes, r.st.Paused = id, interval, paused
		r.mu.Unlock()
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.runStrategy(runCtx, id, interval, paused)
		}()
		select {
		case <-ctx.Done():
			cancel()
			<-done
			r.setState(status.StateStopped)
			return ctx.Err()
		case <-r.restart:
		}
		cancel()
		<-done
	}
}

// ApplySettings is the engine's settings path (it hands every part the
// settings before and after a change): a new strategy, interval or pause
// starts the strategy again; a relay added or removed gets or loses its link
// and, while live, its session alone (the others stay subscribed; in the
// interval strategy a pass comes at once); limits, the page timeout among
// them, are read where they are used, at each pass and connection.
func (r *Runner) ApplySettings(from, to settings.Settings) {
	r.mu.Lock()
	r.settings = to
	l := r.live
	r.mu.Unlock()
	restart := from.Strategy != to.Strategy || from.IntervalMinutes != to.IntervalMinutes || from.Paused != to.Paused
	if !slices.Equal(from.Relays, to.Relays) {
		r.trackRelays(to.Relays) // first: a removed relay's ending connection saves no health
		added := slices.ContainsFunc(to.Relays, func(url string) bool { return !slices.Contains(from.Relays, url) })
		switch {
		case restart: // the strategy starts again with every relay
		case l != nil:
			l.setRelays()
		case added && to.Strategy == settings.FrontierInterval:
			r.SyncNow() // (a live strategy still in its first pass opens a session for it next)
		}
	}
	if restart {
		r.restartStrategy()
	}
}

// Pause holds every strategy while paused is true (the disk is full:
// fetched events could not be stored) and starts it again when it ends.
func (r *Runner) Pause(paused bool) {
	r.mu.Lock()
	changed := r.diskFull != paused
	r.diskFull = paused
	r.mu.Unlock()
	if changed {
		r.restartStrategy()
	}
}

func (r *Runner) restartStrategy() {
	select {
	case r.restart <- struct{}{}:
	default:
	}
}

// current are the settings as last applied.
func (r *Runner) current() settings.Settings {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.settings
}

// pageTimeout is the page timeout as set now (read at each connection).
func (r *Runner) pageTimeout() time.Duration {
	return time.Duration(r.current().Limits.PageTimeoutSeconds) * time.Second
}

func (r *Runner) runStrategy(ctx context.Context, id string, interval int, paused bool) {
	if paused {
		r.setState(status.StateStopped)
		<-ctx.Done()
		return
	}
	switch id {
	case settings.FrontierContinuous, settings.GlobalContinuous:
		r.runContinuous(ctx, id == settings.GlobalContinuous)
	default:
		r.runInterval(ctx, time.Duration(interval)*time.Minute)
	}
}

// runInterval passes every interval (0 = on request only), and at least once
// per UTC day so the daily full refresh happens even in manual mode.
func (r *Runner) runInterval(ctx context.Context, interval time.Duration) {
	for {
		r.runPass(ctx)
		next := nextUTCDay(r.cfg.Clock.Now())
		if interval > 0 {
			next = r.cfg.Clock.Now().Add(interval)
		}
		if !r.wait(ctx, next) {
			return
		}
	}
}

// runContinuous catches up with one pass (it also covers discovery and
// claims), then keeps live subscriptions open; a pass runs again at each
// UTC day change (full refresh) or on request.
func (r *Runner) runContinuous(ctx context.Context, global bool) {
	r.runPass(ctx)
	l := newLive(ctx, r, global)
	r.mu.Lock()
	r.live = l
	r.mu.Unlock()
	liveDone := make(chan struct{})
	go func() {
		defer close(liveDone)
		l.run()
	}()
	defer func() {
		<-liveDone
		r.mu.Lock()
		r.live = nil
		r.mu.Unlock()
	}()
	for r.wait(ctx, nextUTCDay(r.cfg.Clock.Now())) {
		r.runPass(ctx)
		if len(r.relays()) > 0 {
			r.setState(status.StateLive)
		}
	}
}

// wait sleeps until at (or a SyncNow); false when ctx ended.
func (r *Runner) wait(ctx context.Context, at time.Time) bool {
	r.mu.Lock()
	r.st.NextSync = at.Unix()
	r.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-r.syncNow:
	case <-r.cfg.Clock.After(at.Sub(r.cfg.Clock.Now())):
	}
	return true
}

func (r *Runner) runPass(ctx context.Context) {
	if _, err := r.Pass(ctx, false); err != nil && ctx.Err() == nil {
		r.cfg.Log.Warn("sync pass failed", "err", err)
	}
}

func nextUTCDay(now time.Time) time.Time {
	return time.Unix((utcDay(now.Unix())+1)*86400, 0)
}

func (r *Runner) setState(state string) {
	r.mu.Lock()
	r.st.State = state
	r.mu.Unlock()
}

func (r *Runner) setRelayState(url, state string) {
	r.mu.Lock()
	r.relayState[url] = state
	r.mu.Unlock()
}

func (r *Runner) setProgress(p status.Progress) {
	r.mu.Lock()
	r.st.Progress = p
	r.mu.Unlock()
}

// setRelayProgress records one relay's progress in the running pass.
func (r *Runner) setRelayProgress(url string, p status.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// parallel batches report out of order: a family's count only grows
	if old, ok := r.relayProg[url]; ok && old.Pass == p.Pass && old.Total == p.Total && old.Done > p.Done {
		return
	}
	r.relayProg[url] = p
}

func (r *Runner) passFinished(cov status.Coverage, err error, settled *Settled) {
	if err == nil {
		r.passedOnce.Do(func() { close(r.passed) })
	}
	r.mu.Lock()
	clear(r.relayProg)
	r.running = nil
	r.st.Progress = status.Progress{} // progress is of a running pass only
	if err != nil {
		r.st.State = status.StateError
		r.mu.Unlock()
		return
	}
	r.st.Coverage = cov
	r.st.State = cov.State
	r.st.LastSync = r.cfg.Clock.Now().Unix()
	outcome := PassOutcome{At: r.st.LastSync, Coverage: cov, Settled: settled}
	r.mu.Unlock()
	if r.cfg.OnPassFinished != nil {
		r.cfg.OnPassFinished(outcome)
	}
}

// AuthorsLeft forgets the cursors of authors that left the frontier, so a
// return fetches them in full (SPEC §5).
func (r *Runner) AuthorsLeft(pubkeys []string) {
	if err := r.cfg.Store.DeleteCursorsForAuthors(pubkeys); err != nil {
		r.cfg.Log.Warn("delete cursors of authors that left the frontier", "err", err)
	}
}

// ReconcileCursors runs at start, after the first frontier walk: authors
// that left the frontier while the app was stopped still hold cursors, which
// it forgets, as AuthorsLeft does while running. Only the families keyed by
// frontier authors are reconciled; discovery and claims follow other keys.
func (r *Runner) ReconcileCursors(frontier []string) {
	scopes := []string{trustFamily.scope, ratingsFamily.scope}
	n, err := r.cfg.Store.DeleteCursorsOutside(scopes, frontier)
	if err != nil {
		r.cfg.Log.Warn("delete cursors of authors outside the frontier", "err", err)
	} else if n > 0 {
		r.cfg.Log.Info("forgot cursors of authors that left the frontier while stopped", "cursors", n)
	}
}

func (r *Runner) setEventCaps(ts []status.Truncation) {
	r.mu.Lock()
	r.st.EventCaps = ts
	r.mu.Unlock()
}

// EventCaps are the event caps that cut the last pass (see Status).
func (r *Runner) EventCaps() []status.Truncation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.st.EventCaps)
}

// Progress is the running pass's progress (Status's), without the rest of
// the status: a caller that follows only the pass (sync --once) does not
// make the newcomers read every member's cursors while the pass reads them.
func (r *Runner) Progress() status.Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progressLocked()
}

// progressLocked is Progress with r.mu held.
func (r *Runner) progressLocked() status.Progress {
	if r.running != nil {
		return r.running.progress(r.st.Progress, r.cfg.Clock.Now())
	}
	return r.st.Progress
}

// Status is the current sync status: a row per configured relay, its
// live session's while the live strategy runs, else the pass's.
func (r *Runner) Status() Status {
	links := r.links.All()
	r.mu.Lock()
	l := r.live
	r.mu.Unlock()
	var rows []status.Relay
	if len(links) > 0 {
		rows = make([]status.Relay, len(links))
	}
	for i, link := range links {
		if s, ok := l.session(link.URL()); ok {
			rows[i] = s.Row()
		}
	}
	notYetFetched := len(r.NotYetFetched()) // may read the store: not under r.mu
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.st
	st.Progress = r.progressLocked()
	st.Coverage.Reasons = slices.Clone(st.Coverage.Reasons)
	st.EventCaps = slices.Clone(st.EventCaps)
	st.Relays = rows
	st.NotYetFetched = notYetFetched
	for i, link := range links {
		if rows[i].URL == "" {
			rows[i] = link.Row(r.relayState[link.URL()])
		}
		if p, ok := r.relayProg[link.URL()]; ok {
			rows[i].Progress = &p
		}
	}
	return st
}

// TrackRelays re-reads the configured relays: each gets a link (from its
// stored health, so the status has a row for relays not yet touched this
// run) and relays no longer configured are forgotten.
func (r *Runner) TrackRelays() { r.trackRelays(r.relays()) }

func (r *Runner) trackRelays(urls []string) {
	r.links.Track(urls)
	r.mu.Lock()
	defer r.mu.Unlock()
	for url := range r.relayState {
		if !slices.Contains(urls, url) {
			delete(r.relayState, url)
		}
	}
}

// relays reads the configured relays, logging a failure as none.
func (r *Runner) relays() []string {
	urls, err := r.cfg.Store.Relays()
	if err != nil {
		r.cfg.Log.Warn("read relays", "err", err)
	}
	return urls
}
