package reposync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
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
	config []string // our services and the bootstrap relay, for scope

	mu        sync.Mutex
	full      []layerFilter // every filter the relay should carry
	pending   []*owed       // incremental filters whose history is still owed, oldest first
	progress  map[string]progress
	state     string
	set       *relay.LiveSet
	lastGood  time.Time // last moment everything received was committed
	coolUntil time.Time // a failed batch: the relay is left alone until then
	coolWhy   string
	failedRun int   // batches failed in a row since the connection was last live
	caughtUp  int64 // UTC day of the last full catch-up

	wake   chan struct{}
	cancel context.CancelFunc // set before run starts, so stop never misses it
	done   chan struct{}
}

// newRelayConn starts from the resume point kept with the relay's health:
// after a restart (or a pause) the same UTC day as the last full catch-up,
// and of the same scope, only what came since the last commit − 15 min is
// read again. Callers hold s.mu.
func newRelayConn(s *Syncer, url string, counts *relayCounts, full []layerFilter) *relayConn {
	link := s.links.Get(url)
	c := &relayConn{
		s: s, url: url, counts: counts, full: full, state: status.StateIdle,
		link: link, caughtUp: -1, progress: map[string]progress{},
		config: append(s.ix.Services(), s.bootstrap),
		wake:   make(chan struct{}, 1), done: make(chan struct{}),
	}
	if h := link.Health(); h.CaughtUpAt > 0 && h.CommittedAt > 0 && h.CaughtUpFor == c.scope(full) {
		c.caughtUp, c.lastGood = utcDay(time.Unix(h.CaughtUpAt, 0)), time.Unix(h.CommittedAt, 0)
	}
	return c
}

// scope is a digest of what a full catch-up over filters covers, but for
// the threads of root events: our services and bootstrap relay (which decide
// what is kept) and the announcement and repository filters. A resumed
// start skips what a catch-up of another scope did not ask for (a changed
// configuration, a repository new to the relay), so it asks for everything
// again; root events new to the relay since the last run (an import while
// stopped) come with the next UTC day's catch-up.
func (c *relayConn) scope(filters []layerFilter) string {
	h := sha256.New()
	for _, s := range c.config {
		h.Write([]byte(s + "\n"))
	}
	for _, lf := range filters {
		if lf.Layer != layerRoots {
			h.Write([]byte(lf.Filter.String() + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// owed is one window's incremental filters: their whole history (no since)
// is owed whatever the connection's state when they came, and they are
// subscribed live unless the full set of a later connection already is.
type owed struct {
	filters []layerFilter
	live    bool
}

// progress is how far a group of filters' history was paged by attempts that did
// not finish (the connection dropped, the relay failed a page), so the next
// attempt goes on from there instead of starting again from the newest
// event: a history longer than one connection lasts still completes.
type progress struct {
	started int64         // unix time the paging began: what is newer is asked again from started − 15 min
	left    nostr.Filters // the filters not finished, each with the until to go on from; none = all in
}

// update queues incremental filters (history without since, then live) and
// the relay's new full set, used at the next consolidation or reconnect.
func (c *relayConn) update(incremental, full []layerFilter) {
	c.mu.Lock()
	c.full = full
	if len(incremental) > 0 {
		c.pending = append(c.pending, &owed{filters: incremental})
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

// run connects and reconnects (relay.Links.Keep) until ctx, which c.cancel
// (stop) ends, is done; a failed batch rests the relay (batchBackoff).
func (c *relayConn) run(ctx context.Context) {
	defer close(c.done)
	c.s.links.Keep(ctx, c.link, relay.Loop{
		Serve:   c.serve,
		OnState: c.setState,
		Rest: func(ctx context.Context, failure error) bool {
			return c.pause(ctx, c.retryAfter(failure), failure)
		},
	})
}

// batchBackoff paces batches that fail in a row as connection failures are
// paced (SPEC §6.5): 5 s, 10 s, 20 s … 1 h, no jitter (GRASP-02).
var batchBackoff = relay.Backoff{Initial: health.BackoffBase, Max: health.BackoffCap}

// retryAfter is how long a relay whose batch failed is left alone before the
// batch is asked again: the next step of batchBackoff, and at least a minute
// after it refused for load.
func (c *relayConn) retryAfter(batchErr error) time.Duration {
	c.mu.Lock()
	c.failedRun++
	d := batchBackoff.Delay(c.failedRun)
	c.mu.Unlock()
	var closed *relay.ClosedError
	if errors.As(batchErr, &closed) && relay.IsRefusal(closed.Reason) {
		d = max(d, relay.RefusalCooldown)
	}
	return d
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
	c.mu.Lock()
	full, owedBefore := c.full, len(c.pending)
	c.mu.Unlock()
	wasDaily, err := c.catchUp(ctx, conn, full, start)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if wasDaily {
		c.pending = c.pending[owedBefore:] // their whole history came with full's
	}
	for _, o := range c.pending {
		o.live = true // the full set subscribed below carries them
	}
	full = c.full
	c.mu.Unlock()
	if err := set.Add(ctx, c.groups(full, start.Add(-relay.ReconnectWindow).Unix())); err != nil {
		return err
	}
	if err := c.addPending(ctx, conn, set); err != nil {
		return err
	}
	c.good(start)
	c.mu.Lock()
	c.failedRun = 0
	c.mu.Unlock()
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
			if _, err := c.catchUp(ctx, conn, c.fullSet(), clock.Now()); err != nil {
				return err
			}
			daily = clock.After(nextUTCDay(clock.Now()).Sub(clock.Now()))
		}
	}
}

// catchUp fetches history: everything once per UTC day (and on the first
// connection), else what was missed since the last good moment − 15 min.
// daily reports which it was.
func (c *relayConn) catchUp(ctx context.Context, conn *relay.Conn, filters []layerFilter, now time.Time) (daily bool, err error) {
	c.mu.Lock()
	daily = c.caughtUp != utcDay(now)
	since := int64(0)
	if !daily && !c.lastGood.IsZero() {
		since = c.lastGood.Add(-relay.ReconnectWindow).Unix()
	}
	c.mu.Unlock()
	count := func(layer) *atomic.Int64 { return &c.counts.gap }
	if daily {
		count = func(layer) *atomic.Int64 { return &c.counts.catchup }
	}
	var refresh relay.RefreshTally
	if err := c.fetch(ctx, conn, filters, since, count, &refresh); err != nil {
		return daily, err
	}
	if daily {
		c.mu.Lock()
		c.caughtUp = utcDay(now)
		clear(c.progress) // every filter's whole history is in: what other sets reached is moot
		c.mu.Unlock()
		c.link.CaughtUp(now, c.scope(filters))
		if f, offered := refresh.Figures(); offered {
			c.link.NoteRefresh(f) // what NIP-77 did in it
		}
	}
	c.good(now)
	return daily, nil
}

// addPending fetches the owed filters' history and subscribes those not yet
// live, in the order they came. Each leaves the queue only once done, so a
// connection that fails meanwhile leaves the rest (and its paging progress)
// to the next.
func (c *relayConn) addPending(ctx context.Context, conn *relay.Conn, set *relay.LiveSet) error {
	for {
		c.mu.Lock()
		if len(c.pending) == 0 {
			c.mu.Unlock()
			return nil
		}
		o := c.pending[0] // only this goroutine removes entries
		c.mu.Unlock()
		start := c.s.cfg.Clock.Now()
		byLayer := func(l layer) *atomic.Int64 { return &c.counts.byLayer[l] }
		if err := c.fetch(ctx, conn, o.filters, 0, byLayer, nil); err != nil {
			return err
		}
		if !o.live {
			if err := set.Add(ctx, c.groups(o.filters, start.Add(-relay.ReconnectWindow).Unix())); err != nil {
				return err
			}
		}
		c.mu.Lock()
		c.pending = c.pending[1:]
		c.mu.Unlock()
	}
}

// fetch pages through each filter's history since since (0 = all) to EOSE
// and ingests it, counting the events in count's counter for their layer. A
// whole history of which we hold part is reconciled with NIP-77 instead,
// when the relay does it: only the events we lack are fetched. refresh, when
// not nil, gathers what NIP-77 did. The filters of one layer over the same
// references are paged together (relay.FetchEach), so an event they share
// comes once. An attempt that fails leaves each group's progress for the
// next attempt at the same filters, which goes on from there.
func (c *relayConn) fetch(ctx context.Context, conn *relay.Conn, filters []layerFilter, since int64, count func(layer) *atomic.Int64, refresh *relay.RefreshTally) error {
	groups := sameReferences(filters, since)
	for _, g := range groups {
		ingest := func(evs []*nostr.Event) error {
			count(g.layer).Add(int64(len(evs)))
			_, err := c.s.cfg.Sink.Ingest(ctx, c.url, evs)
			return err
		}
		if err := c.fetchGroup(ctx, conn, g.filters, ingest, refresh); err != nil {
			return err
		}
	}
	c.mu.Lock()
	for _, g := range groups {
		delete(c.progress, progressKey(g.filters))
	}
	c.mu.Unlock()
	return nil
}

// layerGroup is filters of one layer fetched together.
type layerGroup struct {
	layer   layer
	filters nostr.Filters
}

// sameReferences groups filters, each with since > 0 set: consecutive
// filters of layer 2 or 3 over the same references (#a/#A/#q, #e/#E/#q)
// form one group.
func sameReferences(filters []layerFilter, since int64) []layerGroup {
	var out []layerGroup
	for i, lf := range filters {
		f := lf.Filter
		if since > 0 {
			f.Since = timestamp(since)
		}
		if i > 0 && lf.Layer != layerAnnouncements && lf.Layer == filters[i-1].Layer && slices.Equal(references(lf.Filter), references(filters[i-1].Filter)) {
			last := &out[len(out)-1]
			last.filters = append(last.filters, f)
			continue
		}
		out = append(out, layerGroup{lf.Layer, nostr.Filters{f}})
	}
	return out
}

// references are the values of a layer 2 or 3 filter's one tag.
func references(f nostr.Filter) []string {
	for _, values := range f.Tags {
		return values
	}
	return nil
}

// fetchGroup fetches the history of a group of filters, going on from the
// progress an earlier attempt left: first what is newer than that attempt's
// start, then what it had not reached.
func (c *relayConn) fetchGroup(ctx context.Context, conn *relay.Conn, filters nostr.Filters, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) error {
	key := progressKey(filters)
	c.mu.Lock()
	p, resuming := c.progress[key]
	c.mu.Unlock()
	now := c.s.cfg.Clock.Now().Unix()
	if filters[0].Since == nil && (!resuming || len(p.left) > 0) {
		// NIP-77 finds what we lack of each whole history, wherever an
		// earlier attempt stopped
		paged, err := c.reconcileEach(ctx, conn, filters, ingest, refresh)
		if err != nil {
			return err
		}
		if len(paged) == 0 {
			c.saveProgress(key, progress{started: now})
			return nil
		}
		if !resuming {
			filters = paged
		}
	}
	if resuming {
		since := p.started - int64(relay.ReconnectWindow/time.Second)
		newer := slices.Clone(filters)
		for i := range newer {
			if newer[i].Since == nil || int64(*newer[i].Since) < since {
				newer[i].Since = timestamp(since)
			}
		}
		st, _, err := conn.FetchEach(ctx, newer, ingest)
		c.link.Fetched(st)
		if err != nil {
			return err
		}
		p.started = now
		c.saveProgress(key, p)
		if len(p.left) == 0 {
			return nil
		}
		filters = p.left
	} else {
		p.started = now
	}
	st, left, err := conn.FetchEach(ctx, filters, ingest)
	c.link.Fetched(st)
	p.left = left
	c.saveProgress(key, p)
	return err
}

// reconcileEach reconciles each filter's whole history with NIP-77 where the
// relay does it and returns the filters left to page.
func (c *relayConn) reconcileEach(ctx context.Context, conn *relay.Conn, filters nostr.Filters, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) (nostr.Filters, error) {
	var paged nostr.Filters
	for _, f := range filters {
		err := c.reconcile(ctx, conn, f, ingest, refresh)
		switch {
		case err == nil:
		case errors.Is(err, relay.ErrNotReconciled) || relay.IsReconcileRefused(err):
			paged = append(paged, f)
		default:
			return nil, err
		}
	}
	return paged, nil
}

func (c *relayConn) saveProgress(key string, p progress) {
	c.mu.Lock()
	c.progress[key] = p
	c.mu.Unlock()
}

// progressKey names a group of filters across attempts.
func progressKey(filters nostr.Filters) string { return filters.String() }

func timestamp(unix int64) *nostr.Timestamp {
	ts := nostr.Timestamp(unix)
	return &ts
}

// reconcile fetches what f's history holds that we lack, found by NIP-77.
func (c *relayConn) reconcile(ctx context.Context, conn *relay.Conn, f nostr.Filter, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) error {
	_, rec, err := relay.ReconcileHeld(ctx, c.link, conn, f, relay.PagedQuery, func(max int) ([]store.Stamp, error) {
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
				if l, ok := it.Label.(layer); ok {
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
func (c *relayConn) groups(filters []layerFilter, since int64) []relay.Group {
	out := make([]relay.Group, len(filters))
	for i, lf := range filters {
		f := lf.Filter
		if since > 0 {
			f.Since = timestamp(since)
		}
		out[i] = relay.Group{Label: lf.Layer, Filters: nostr.Filters{f}}
	}
	return out
}

func (c *relayConn) fullSet() []layerFilter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.full
}

// good moves the last good moment (kept with the health for a restart).
func (c *relayConn) good(t time.Time) {
	c.mu.Lock()
	later := t.After(c.lastGood)
	if later {
		c.lastGood = t
	}
	c.mu.Unlock()
	if later {
		c.link.Committed(t)
	}
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
