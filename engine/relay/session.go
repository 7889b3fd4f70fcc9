package relay

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/health"
	"dtp-personal/engine/status"
)

// defaultIngestBatch is how many live events a Session hands its sink at
// once, at most.
const defaultIngestBatch = 500

// LiveTuning sizes a Session, the same for both sync profiles. Zero values
// take the defaults.
type LiveTuning struct {
	queueCap    int // live events queued before back-pressure; default defaultQueueCap
	ingestBatch int // live events handed to the sink at once; default defaultIngestBatch
}

// Sink takes a connection's events; it returns once they are committed or
// refused, stored counting those new to us.
type Sink interface {
	Ingest(ctx context.Context, relay string, evs []*nostr.Event) (stored int, err error)
}

// failureRest paces a session's failures that are not the relay's (a
// failed batch, a localError) as connection failures are paced (SPEC §6.5):
// 5 s, 10 s, 20 s … 1 h, no jitter (GRASP-02).
var failureRest = Backoff{Initial: health.BackoffBase, Max: health.BackoffCap}

// LiveProfile is what a sync profile decides in a Session: what to
// subscribe, its catch-up policy, and what an event and an EOSE mean. The
// Session calls the connection hooks (Open, Reopen, Update) on one goroutine,
// and Received and EOSE on its consumer's, in arrival order.
type LiveProfile interface {
	// Open starts a connection: the history the profile owes (from since
	// where it is not 0: the last good moment − ReconnectWindow, a drop
	// ago), then its subscriptions on lc.Set.
	Open(ctx context.Context, lc *LiveConn, since int64) error
	// Reopen subscribes again after back-pressure lost live events: the
	// set's subscriptions are closed and everything queued before is
	// ingested; since is the last good moment − ReconnectWindow.
	Reopen(ctx context.Context, lc *LiveConn, since int64) error
	// Update does the work Session.Wake announced or lc.WakeAt scheduled
	// (new filters, a new author set, a daily catch-up).
	Update(ctx context.Context, lc *LiveConn) error
	// Consolidate is the profile's whole filter set in as few groups as it
	// can (liveOptions.Consolidate).
	Consolidate() []Group
	// Received is told of each event the subscriptions bring, before its
	// batch is ingested (counters, the newest created_at seen per key).
	Received(label any, ev *nostr.Event)
	// EOSE is told that a group's stored events were all ingested; ok is
	// false when a batch since the previous EOSE failed, so what it would
	// checkpoint must stay.
	EOSE(label any, ok bool)
}

// SessionConfig wires a Session.
type SessionConfig struct {
	Sink Sink
	Live LiveTuning
}

// Session keeps one relay's live subscriptions across its connections, the
// same for both sync profiles: it connects as the relay's health allows
// (Links.Keep), lets the profile open each connection, ingests what the
// subscriptions bring in batches (counting what was new to us, Link.Stored),
// moves the last good moment (Link.Committed), recovers from back-pressure
// (close, drain, reopen), ingests what is still queued when the connection
// drops, rests after a failure that is not the relay's (failureRest), and
// gives the relay's status row. The profile (LiveProfile) keeps its filters,
// its catch-up policy and its cursors.
type Session struct {
	links *Links
	link  *Link
	p     LiveProfile
	cfg   SessionConfig
	wake  chan struct{}

	mu        sync.Mutex
	state     string
	conn      *LiveConn // the open connection's, nil between connections
	lastGood  time.Time // last moment everything received was committed
	restUntil time.Time // a failure not the relay's: no connection before this
	restWhy   string
	failedRun int // such failures in a row since the session was last live
}

// NewSession makes url's session (its link from links) for profile p;
// nothing connects until Run.
func NewSession(links *Links, url string, p LiveProfile, cfg SessionConfig) *Session {
	if cfg.Live.queueCap <= 0 {
		cfg.Live.queueCap = defaultQueueCap
	}
	if cfg.Live.ingestBatch <= 0 {
		cfg.Live.ingestBatch = defaultIngestBatch
	}
	return &Session{links: links, link: links.Get(url), p: p, cfg: cfg, wake: make(chan struct{}, 1), state: status.StateIdle}
}

// URL is the relay's address.
func (s *Session) url() string { return s.link.URL() }

// Link is the relay's link.
func (s *Session) Link() *Link { return s.link }

// ResumeFrom sets the last good moment before the first connection: a
// restart resumes from what an earlier run committed (kept with the health).
func (s *Session) ResumeFrom(t time.Time) {
	s.mu.Lock()
	s.lastGood = t
	s.mu.Unlock()
}

// Wake asks the open connection to run the profile's Update; a connection
// opened later runs Open, which covers it.
func (s *Session) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run keeps the relay connected and live until ctx ends.
func (s *Session) Run(ctx context.Context) {
	s.links.keep(ctx, s.link, loop{Serve: s.serve, onState: s.setState, rest: s.rest})
}

func (s *Session) log() *slog.Logger {
	return s.links.log.With("profile", s.links.profile, "relay", s.url())
}

func (s *Session) setState(state string) {
	s.mu.Lock()
	s.state = state
	s.mu.Unlock()
}

// serve runs one connection until it drops, fails or ctx ends.
func (s *Session) serve(ctx context.Context, conn *Conn) error {
	lc := &LiveConn{Conn: conn, s: s}
	lc.Set = newLiveSet(conn, liveOptions{
		clock: s.links.clock, queueCap: s.cfg.Live.queueCap, consolidate: s.p.Consolidate,
		onRefused: func(reason string, until time.Time) {
			s.log().Warn("relay refused live subscriptions; asking again later with fewer REQs", "reason", reason, "until", until)
			s.setState(status.StatePartial)
		},
		onClosed: func(reason string) {
			s.log().Warn("relay closed a live subscription; reopening it after a backoff", "reason", reason)
			s.setState(status.StatePartial)
		},
		onReopened: func() { s.setState(status.StateLive) },
	})
	s.mu.Lock()
	s.conn = lc
	s.mu.Unlock()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		s.consume(ctx, lc)
	}()
	defer func() {
		lc.Set.CloseAll()
		conn.Close()
		<-consumed // it ingests what was queued first
		s.mu.Lock()
		s.conn = nil
		s.mu.Unlock()
	}()
	if err := s.p.Open(ctx, lc, s.since()); err != nil {
		return err
	}
	s.mu.Lock()
	s.state, s.failedRun = status.StateLive, 0
	s.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-conn.done():
			return conn.err()
		case <-lc.Set.overflowed():
			// back-pressure: stop the stream, ingest what is queued, then
			// let the profile reopen from what it holds
			s.setState(status.StatePartial)
			lc.Set.CloseAll()
			lc.Set.drain(ctx)
			if err := s.p.Reopen(ctx, lc, s.since()); err != nil {
				return err
			}
			s.setState(status.StateLive)
		case <-s.wake:
			if err := s.p.Update(ctx, lc); err != nil {
				return err
			}
		case <-lc.wakeAt:
			lc.wakeAt = nil
			if err := s.p.Update(ctx, lc); err != nil {
				return err
			}
		}
	}
}

// consume ingests the set's events in batches of at most ingestBatch (fewer
// when the queue runs dry), tells the profile of each event and EOSE, and
// answers drain marks. When the connection ends it ingests what is still
// queued: those events arrived and are not asked for again.
func (s *Session) consume(ctx context.Context, lc *LiveConn) {
	var evs []*nostr.Event
	ok := true // no batch failed since the last EOSE
	flush := func() {
		if len(evs) > 0 {
			ok = s.ingest(ctx, evs) && ok
			evs = evs[:0]
		}
	}
	handle := func(it item) {
		switch {
		case it.event != nil:
			s.p.Received(it.label, it.event)
			evs = append(evs, it.event)
			if len(evs) >= s.cfg.Live.ingestBatch {
				flush()
			}
		case it.eose:
			flush()
			s.p.EOSE(it.label, ok)
			ok = true
		default: // a drain mark: everything before it is ingested
			flush()
			it.done()
		}
	}
	items := lc.Set.Items()
	for {
		select {
		case it := <-items:
			handle(it)
			if len(items) == 0 {
				flush()
			}
		case <-lc.done():
			for len(items) > 0 {
				handle(<-items)
			}
			flush()
			return
		}
	}
}

// ingest hands evs to the sink; true when they were committed.
func (s *Session) ingest(ctx context.Context, evs []*nostr.Event) bool {
	stored, err := s.cfg.Sink.Ingest(ctx, s.url(), evs)
	s.link.Stored(stored)
	if err != nil {
		if ctx.Err() == nil {
			s.log().Warn("live ingest failed", "err", err)
		}
		return false
	}
	s.good(s.links.clock.Now())
	return true
}

// good moves the last good moment to t (kept with the health for a restart).
func (s *Session) good(t time.Time) {
	s.mu.Lock()
	later := t.After(s.lastGood)
	if later {
		s.lastGood = t
	}
	s.mu.Unlock()
	if later {
		s.link.committed(t)
	}
}

// since is where a new connection or a reopened stream starts: the last
// good moment − ReconnectWindow, 0 when there was none.
func (s *Session) since() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastGood.IsZero() {
		return 0
	}
	return s.lastGood.Add(-ReconnectWindow).Unix()
}

// rest waits after a failure that is not the relay's (Loop.Rest): the next
// step of failureRest, and at least refusalCooldown after a refusal for
// load; the row shows it meanwhile. False when ctx ended.
func (s *Session) rest(ctx context.Context, failure error) bool {
	clock := s.links.clock
	s.mu.Lock()
	s.failedRun++
	d := failureRest.Delay(s.failedRun)
	var closed *closedError
	if errors.As(failure, &closed) && isRefusal(closed.reason) {
		d = max(d, refusalCooldown)
	}
	s.restUntil, s.restWhy = clock.Now().Add(d), failure.Error()
	wait := clock.After(d) // before the rest shows: a test clock sees the waiter once it does
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.restUntil, s.restWhy = time.Time{}, ""
		s.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return false
	case <-wait:
		return true
	}
}

// Row is the relay's status row: the link's (health, figures, refresh),
// the session's state, and why it is left alone if it is (a rest, or a
// refusal's cool-down on the open connection).
func (s *Session) Row() status.Relay {
	s.mu.Lock()
	state, lc, restUntil, restWhy := s.state, s.conn, s.restUntil, s.restWhy
	s.mu.Unlock()
	row := s.link.Row(state)
	if !restUntil.IsZero() {
		row.CoolingUntil = restUntil.Unix()
		if row.LastError == "" {
			row.LastError = restWhy
		}
	}
	if lc != nil {
		if until := lc.Conn.coolingUntil(); !until.IsZero() {
			row.CoolingUntil = until.Unix()
		}
		if st := lc.Set.stats(); !st.coolingUntil.IsZero() {
			row.CoolingUntil = st.coolingUntil.Unix()
			if row.LastError == "" {
				row.LastError = "refused subscriptions: " + st.lastRefusal
			}
		}
	}
	return row
}

// LiveStats are the open connection's subscription figures; false between
// connections.
func (s *Session) LiveStats() (LiveStats, bool) {
	s.mu.Lock()
	lc := s.conn
	s.mu.Unlock()
	if lc == nil {
		return LiveStats{}, false
	}
	return lc.Set.stats(), true
}

// LiveConn is one connection of a Session as its profile sees it: the
// connection, its live subscriptions, and the session's bookkeeping.
type LiveConn struct {
	*Conn
	Set *LiveSet

	s      *Session
	wakeAt <-chan time.Time
}

// Link is the relay's link.
func (lc *LiveConn) Link() *Link { return lc.s.link }

// Good records that everything received up to t is committed: a later
// connection re-reads from t − ReconnectWindow.
func (lc *LiveConn) Good(t time.Time) { lc.s.good(t) }

// WakeAt schedules the profile's Update on this connection at t (replacing
// an earlier schedule).
func (lc *LiveConn) WakeAt(t time.Time) {
	clock := lc.s.links.clock
	lc.wakeAt = clock.After(t.Sub(clock.Now()))
}

// Ingest hands history the profile fetched to the sink, counting what was
// new to us; a failure is ours (localError), not the relay's.
func (lc *LiveConn) Ingest(ctx context.Context, evs []*nostr.Event) (stored int, err error) {
	stored, err = lc.s.cfg.Sink.Ingest(ctx, lc.s.url(), evs)
	lc.s.link.Stored(stored)
	return stored, Local(err)
}
