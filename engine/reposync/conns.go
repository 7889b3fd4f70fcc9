package reposync

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/health"
	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// ConnConfig configures the sync relays' connections. Zero values take the
// defaults.
type ConnConfig struct {
	AuthKey     string        // NIP-42 key of the data directory
	PageTimeout time.Duration // longest wait for one page of history; default 30 s
	IngestBatch int           // live events handed to the sink at once; default 500
}

func (c ConnConfig) withDefaults() ConnConfig {
	if c.PageTimeout <= 0 {
		c.PageTimeout = 30 * time.Second
	}
	if c.IngestBatch <= 0 {
		c.IngestBatch = 500
	}
	return c
}

// relayConn keeps one sync relay connected as its health allows: history
// first (paged with until), then live subscriptions packed into few REQs;
// incremental filters while running, a reconnect from the last good moment
// − 15 min, and a full catch-up once per UTC day. No jitter (GRASP-02).
type relayConn struct {
	s      *Syncer
	url    string
	counts *relayCounts
	link   *relay.Link

	mu        sync.Mutex
	full      []LayerFilter   // every filter the relay should carry
	pending   [][]LayerFilter // incremental filters not yet sent
	state     string
	set       *relay.LiveSet
	lastGood  time.Time // last moment everything received was committed
	coolUntil time.Time // a failed batch: the relay is left alone until then
	coolWhy   string
	caughtUp  int64 // UTC day of the last full catch-up

	wake   chan struct{}
	cancel context.CancelFunc // set before run starts, so stop never misses it
	done   chan struct{}
}

func newRelayConn(s *Syncer, url string, counts *relayCounts, full []LayerFilter) *relayConn {
	return &relayConn{
		s: s, url: url, counts: counts, full: full, state: status.StateIdle,
		link: s.links.Get(url), caughtUp: -1,
		wake: make(chan struct{}, 1), done: make(chan struct{}),
	}
}

// update queues incremental filters (history without since, then live) and
// the relay's new full set, used at the next consolidation or reconnect.
func (c *relayConn) update(incremental, full []LayerFilter) {
	c.mu.Lock()
	c.full = full
	if len(incremental) > 0 {
		c.pending = append(c.pending, incremental)
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// stop ends the connection and waits for it.
func (c *relayConn) stop() {
	c.cancel()
	<-c.done
}

func (c *relayConn) setState(state string) {
	c.mu.Lock()
	c.state = state
	c.mu.Unlock()
}

// run connects and reconnects until ctx, which c.cancel (stop) ends, is done.
func (c *relayConn) run(ctx context.Context) {
	defer close(c.done)
	defer c.setState(status.StateStopped)
	clock := c.s.cfg.Clock
	for ctx.Err() == nil {
		h := c.link.Health()
		if now := clock.Now(); !h.Due(now) {
			select {
			case <-ctx.Done():
				return
			case <-clock.After(time.Unix(h.NextRetryAt, 0).Sub(now)):
			}
		}
		c.setState(status.StateConnecting)
		conn, err := c.link.Connect(ctx)
		if err != nil {
			continue
		}
		failure := c.serve(ctx, conn)
		if failure != nil && ctx.Err() == nil {
			c.s.cfg.Log.Warn("repository sync connection failed", "relay", c.url, "err", failure)
		}
		batchFailed := failure != nil && !relay.ConnectionError(failure) && ctx.Err() == nil
		connFailure := failure
		if batchFailed || ctx.Err() != nil {
			connFailure = nil // the relay answered: not a connection failure
		}
		c.link.Release(conn, connFailure)
		c.s.links.Save(c.link)
		if ctx.Err() == nil {
			c.setState(status.StateReconnecting)
		}
		if batchFailed && !c.pause(ctx, c.retryAfter(failure), failure) {
			return
		}
	}
}

// retryAfter is how long a relay whose batch failed is left alone before the
// batch is asked again: a minute after it refused for load, else the first
// backoff step.
func (c *relayConn) retryAfter(batchErr error) time.Duration {
	var closed *relay.ClosedError
	if errors.As(batchErr, &closed) && relay.IsRefusal(closed.Reason) {
		return relay.RefusalCooldown
	}
	return health.BackoffBase
}

// pause waits d after a failed batch, showing the cool-down and why in the
// relay's status; false when ctx ended.
func (c *relayConn) pause(ctx context.Context, d time.Duration, why error) bool {
	clock := c.s.cfg.Clock
	c.mu.Lock()
	c.coolUntil, c.coolWhy = clock.Now().Add(d), why.Error()
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.coolUntil, c.coolWhy = time.Time{}, ""
		c.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		return false
	case <-clock.After(d):
		return true
	}
}

// serve runs one connection until it drops, fails or ctx ends.
func (c *relayConn) serve(ctx context.Context, conn *relay.Conn) error {
	clock := c.s.cfg.Clock
	set := relay.NewLiveSet(conn, relay.LiveOptions{
		Clock:       clock,
		Consolidate: func() []relay.Group { return c.groups(c.fullSet(), 0) },
		OnRefused: func(reason string, until time.Time) {
			c.s.cfg.Log.Warn("relay refused subscriptions; asking again with fewer REQs", "relay", c.url, "reason", reason, "until", until)
		},
		OnClosed: func(reason string) {
			c.s.cfg.Log.Warn("relay closed a repository subscription", "relay", c.url, "reason", reason)
		},
	})
	c.mu.Lock()
	c.set = set
	c.pending = nil // the full set below covers them
	c.mu.Unlock()
	defer func() {
		set.CloseAll()
		c.mu.Lock()
		c.set = nil
		c.mu.Unlock()
	}()
	consumed := make(chan struct{})
	go func() {
		defer close(consumed)
		c.consume(ctx, conn, set)
	}()
	defer func() {
		conn.Close()
		<-consumed
	}()

	start := clock.Now()
	if err := c.catchUp(ctx, conn, c.fullSet(), start); err != nil {
		return err
	}
	if err := set.Add(ctx, c.groups(c.fullSet(), start.Add(-relay.ReconnectWindow).Unix())); err != nil {
		return err
	}
	c.good(start)
	c.setState(status.StateLive)
	daily := clock.After(nextUTCDay(clock.Now()).Sub(clock.Now()))
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-conn.Done():
			return conn.Err()
		case <-set.Overflowed():
			// back-pressure: stop the stream, drain, and re-read from the last good moment
			c.setState(status.StatePartial)
			set.CloseAll()
			set.Drain(ctx)
			if err := set.Resubscribe(c.goodSince()); err != nil {
				return err
			}
			c.setState(status.StateLive)
		case <-c.wake:
			if err := c.addPending(ctx, conn, set); err != nil {
				return err
			}
		case <-daily:
			if err := c.catchUp(ctx, conn, c.fullSet(), clock.Now()); err != nil {
				return err
			}
			daily = clock.After(nextUTCDay(clock.Now()).Sub(clock.Now()))
		}
	}
}

// catchUp fetches history: everything once per UTC day (and on the first
// connection), else what was missed since the last good moment − 15 min.
func (c *relayConn) catchUp(ctx context.Context, conn *relay.Conn, filters []LayerFilter, now time.Time) error {
	c.mu.Lock()
	daily := c.caughtUp != utcDay(now)
	since := int64(0)
	if !daily && !c.lastGood.IsZero() {
		since = c.lastGood.Add(-relay.ReconnectWindow).Unix()
	}
	c.mu.Unlock()
	count := &c.counts.gap
	if daily {
		count = &c.counts.catchup
	}
	var refresh relay.RefreshTally
	if err := c.fetch(ctx, conn, filters, since, count, &refresh); err != nil {
		return err
	}
	if daily {
		c.mu.Lock()
		c.caughtUp = utcDay(now)
		c.mu.Unlock()
		if f, offered := refresh.Figures(); offered {
			c.link.NoteRefresh(f) // what NIP-77 did in it
		}
	}
	c.good(now)
	return nil
}

// addPending sends the incremental filters: their history, then live.
func (c *relayConn) addPending(ctx context.Context, conn *relay.Conn, set *relay.LiveSet) error {
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, filters := range pending {
		start := c.s.cfg.Clock.Now()
		for _, lf := range filters {
			if err := c.fetch(ctx, conn, []LayerFilter{lf}, 0, &c.counts.byLayer[lf.Layer], nil); err != nil {
				return err
			}
		}
		if err := set.Add(ctx, c.groups(filters, start.Add(-relay.ReconnectWindow).Unix())); err != nil {
			return err
		}
	}
	return nil
}

// fetch pages through each filter's history since since (0 = all) and
// ingests it, counting the events in count. A whole history of which we hold
// part is reconciled with NIP-77 instead, when the relay does it: only the
// events we lack are fetched. refresh, when not nil, gathers what NIP-77 did.
func (c *relayConn) fetch(ctx context.Context, conn *relay.Conn, filters []LayerFilter, since int64, count interface{ Add(int64) int64 }, refresh *relay.RefreshTally) error {
	ingest := func(evs []*nostr.Event) error {
		count.Add(int64(len(evs)))
		_, err := c.s.cfg.Sink.Ingest(ctx, c.url, evs)
		return err
	}
	for _, lf := range filters {
		f := lf.Filter
		if since > 0 {
			ts := nostr.Timestamp(since)
			f.Since = &ts
		} else {
			err := c.reconcile(ctx, conn, f, ingest, refresh)
			if err == nil {
				continue
			}
			if !errors.Is(err, relay.ErrNotReconciled) && !relay.IsReconcileRefused(err) {
				return err
			}
		}
		st, err := conn.Fetch(ctx, f, ingest)
		c.link.Fetched(st)
		if err != nil {
			return err
		}
	}
	return nil
}

// reconcile fetches what f's history holds that we lack, found by NIP-77.
func (c *relayConn) reconcile(ctx context.Context, conn *relay.Conn, f nostr.Filter, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) error {
	_, rec, err := relay.ReconcileHeld(ctx, c.link, conn, f, func(max int) ([]store.Stamp, error) {
		return c.s.cfg.Store.Stamps(ctx, f, max)
	}, store.StampPairs[store.Stamp], refresh)
	if err != nil {
		return err
	}
	st, err := conn.FetchIDs(ctx, f, rec.Need, ingest)
	c.link.Fetched(st)
	return err
}

// consume ingests live events in batches and answers drain marks.
func (c *relayConn) consume(ctx context.Context, conn *relay.Conn, set *relay.LiveSet) {
	var evs []*nostr.Event
	flush := func() {
		if len(evs) == 0 {
			return
		}
		if _, err := c.s.cfg.Sink.Ingest(ctx, c.url, evs); err != nil {
			c.s.cfg.Log.Warn("repository sync ingest failed", "relay", c.url, "err", err)
		} else {
			c.good(c.s.cfg.Clock.Now())
		}
		evs = evs[:0]
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-conn.Done():
			flush() // what arrived before the drop
			return
		case it := <-set.Items():
			if it.Event != nil {
				if l, ok := it.Label.(Layer); ok {
					c.counts.byLayer[l].Add(1)
				}
				evs = append(evs, it.Event)
				if len(evs) < c.s.cfg.Conn.IngestBatch && len(set.Items()) > 0 {
					continue
				}
			}
			flush()
			it.Done()
		}
	}
}

// groups turns filters into the set's groups, one per filter labelled by
// its layer; since > 0 is set on each.
func (c *relayConn) groups(filters []LayerFilter, since int64) []relay.Group {
	out := make([]relay.Group, len(filters))
	for i, lf := range filters {
		f := lf.Filter
		if since > 0 {
			ts := nostr.Timestamp(since)
			f.Since = &ts
		}
		out[i] = relay.Group{Label: lf.Layer, Filters: nostr.Filters{f}}
	}
	return out
}

func (c *relayConn) fullSet() []LayerFilter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.full
}

func (c *relayConn) good(t time.Time) {
	c.mu.Lock()
	if t.After(c.lastGood) {
		c.lastGood = t
	}
	c.mu.Unlock()
}

// goodSince is where a reopened stream starts: the last good moment − 15 min.
func (c *relayConn) goodSince() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastGood.Add(-relay.ReconnectWindow).Unix()
}

// status is the relay's row in the profile's status.
func (c *relayConn) status() status.RepoRelay {
	h := c.link.Health()
	c.mu.Lock()
	defer c.mu.Unlock()
	r := status.RepoRelay{
		URL: c.url, Health: h.State, State: c.state, Connected: c.link.Connected(),
		Filters: len(c.full), EventsReceived: c.counts.received(), LastError: h.LastError,
		Failures: h.ConsecutiveFailures, NextRetry: h.NextRetryAt,
		Refresh: c.link.RefreshStatus(),
	}
	if !c.coolUntil.IsZero() {
		r.CoolingUntil = c.coolUntil.Unix()
		if r.LastError == "" {
			r.LastError = c.coolWhy
		}
	}
	if c.set != nil {
		st := c.set.Stats()
		r.Filters, r.Subscriptions = st.Filters, st.Reqs
		if !st.CoolingUntil.IsZero() {
			r.CoolingUntil = st.CoolingUntil.Unix()
			if r.LastError == "" {
				r.LastError = "refused subscriptions: " + st.LastRefusal
			}
		}
	}
	return r
}

func utcDay(t time.Time) int64 { return t.Unix() / 86400 }

func nextUTCDay(t time.Time) time.Time { return time.Unix((utcDay(t)+1)*86400, 0) }
