package trustsync

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// MaxLiveFilters is the most live filters kept on one connection; above it
// the filters are consolidated into fewer, larger ones (SPEC §6.5).
const MaxLiveFilters = 70

// Global live families: one cursor each, keyed by the empty author.
var (
	globalTrust = family{scope: "global-trust", filter: func([]string) nostr.Filter {
		return nostr.Filter{Kinds: []int{validation.KindTrust}}
	}}
	globalRatings = family{scope: "global-ratings", filter: func([]string) nostr.Filter {
		return nostr.Filter{Kinds: []int{validation.KindRating}, Tags: nostr.TagMap{"s": {"x.com"}}}
	}}
	globalClaims = family{scope: "global-claims", filter: func([]string) nostr.Filter {
		return nostr.Filter{Kinds: []int{validation.KindClaims}}
	}}
)

// live keeps subscriptions open on every relay: for the frontier's authors
// (frontier-continuous) or for every kept event (global-continuous).
type live struct {
	r      *Runner
	global bool

	mu      sync.Mutex
	authors []string
	waiters []chan struct{}
}

func newLive(r *Runner, global bool) *live {
	return &live{r: r, global: global}
}

func (l *live) run(ctx context.Context) {
	l.authors = trustFamily.normalizeKeys(l.r.cfg.Frontier.Authors())
	var wg sync.WaitGroup
	if !l.global {
		wg.Go(func() { l.watchFrontier(ctx) })
	}
	relays := l.r.relays()
	for _, url := range relays {
		wg.Go(func() { l.relayLoop(ctx, url) })
	}
	if len(relays) > 0 {
		// with no relay there is nothing live to follow: the pass's "partial
		// (no-relays)" stays the state
		l.r.setState(status.StateLive)
	}
	wg.Wait()
}

// watchFrontier publishes the frontier's authors to the relay loops, at most
// once per debounce window after a change.
func (l *live) watchFrontier(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.r.cfg.Frontier.Changed():
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(l.r.cfg.Resubscribe):
		}
		next := trustFamily.normalizeKeys(l.r.cfg.Frontier.Authors())
		l.mu.Lock()
		changed := !slices.Equal(next, l.authors)
		if changed {
			l.authors = next
			for _, w := range l.waiters {
				select {
				case w <- struct{}{}:
				default:
				}
			}
		}
		l.mu.Unlock()
	}
}

func (l *live) subscribeAuthors() (<-chan struct{}, func() []string) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	return ch, func() []string {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.authors
	}
}

// relayLoop keeps one relay connected as its health allows.
func (l *live) relayLoop(ctx context.Context, url string) {
	link := l.r.link(url)
	changed, authors := l.subscribeAuthors()
	var floor int64 // after a drop: re-read from the last good moment − 15 min
	for ctx.Err() == nil {
		h := link.Health()
		if now := l.r.cfg.Clock.Now(); !h.Due(now) {
			select {
			case <-ctx.Done():
				return
			case <-l.r.cfg.Clock.After(time.Unix(h.NextRetryAt, 0).Sub(now)):
			}
		}
		l.r.setRelayState(url, status.StateConnecting)
		conn, err := l.r.connect(ctx, link)
		if err != nil {
			continue
		}
		s := &session{
			l: l, url: url, link: link, conn: conn,
			queue: make(chan liveItem, l.r.cfg.QueueCap), overflow: make(chan struct{}, 1),
		}
		lastGood, failure := s.serve(ctx, changed, authors, floor)
		if failure != nil && ctx.Err() == nil {
			l.r.cfg.Log.Warn("live connection failed", "relay", url, "err", failure)
		}
		if !relay.ConnectionError(failure) || ctx.Err() != nil {
			failure = nil // the relay answered; a batch failed
		}
		link.Release(conn, failure)
		l.r.metrics.relay(url).garbage.Add(conn.Garbage())
		l.r.persistHealth(link.Health(), true)
		if !lastGood.IsZero() {
			floor = lastGood.Add(-reconnectWindow).Unix()
		}
		if ctx.Err() == nil {
			l.r.setRelayState(url, status.StateReconnecting)
		}
	}
	l.r.setRelayState(url, status.StateStopped)
}

// liveItem is an event, an EOSE marker (ev nil) or a barrier (done set),
// in arrival order.
type liveItem struct {
	ev   *nostr.Event
	sub  *liveSub
	done chan struct{}
}

type liveSub struct {
	fam    *family
	keys   []string
	opened time.Time
	sub    *relay.Sub
	gap    bool // opened to fill a gap: its stored events count as gap events

	mu    sync.Mutex
	eosed bool
}

func (ls *liveSub) live() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.eosed
}

// session is one live connection.
type session struct {
	l    *live
	url  string
	link *relay.Link
	conn *relay.Conn

	queue    chan liveItem
	overflow chan struct{}
	subs     []*liveSub
	keys     []string  // authors subscribed (frontier mode)
	lastGood time.Time // last moment everything received was ingested
	mu       sync.Mutex
}

// serve runs the connection until it drops, fails or ctx ends; it returns
// the last moment all received events were ingested (zero if never) and the
// failure, if any.
func (s *session) serve(ctx context.Context, changed <-chan struct{}, authors func() []string, floor int64) (time.Time, error) {
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		s.flush(ctx)
	}()
	defer func() {
		s.closeSubs()
		s.conn.Close()
		<-flushed
	}()
	if err := s.open(ctx, authors(), floor, floor != 0); err != nil {
		return s.good(), err
	}
	s.l.r.setRelayState(s.url, status.StateLive)
	for {
		select {
		case <-ctx.Done():
			return s.good(), nil
		case <-s.conn.Done():
			return s.good(), s.conn.Err()
		case <-s.overflow:
			// Back-pressure: stop the stream, drain what is queued, then
			// re-read from the cursors (which only moved at EOSE).
			s.l.r.setRelayState(s.url, status.StatePartial)
			s.closeSubs()
			s.barrier(ctx)
			if err := s.open(ctx, s.keys, 0, true); err != nil {
				return s.good(), err
			}
			s.l.r.setRelayState(s.url, status.StateLive)
		case <-changed:
			if err := s.follow(ctx, authors()); err != nil {
				return s.good(), err
			}
		}
	}
}

func (s *session) good() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastGood
}

// open subscribes for keys: frontier authors are first caught up with paged
// REQs (history, cursors moved at EOSE), then followed live from the catch-up
// start; global filters are subscribed from their cursor (or now − overlap).
func (s *session) open(ctx context.Context, keys []string, floor int64, gap bool) error {
	r := s.l.r
	start := r.cfg.Clock.Now()
	if s.l.global {
		for _, f := range []*family{&globalTrust, &globalRatings, &globalClaims} {
			since := start.Add(-Overlap).Unix()
			cs, err := r.cfg.Store.Cursors(s.url, f.scope, []string{""})
			if err != nil {
				return err
			}
			if c, ok := cs[""]; ok {
				since = max(c.LastSeenCreatedAt-int64(Overlap/time.Second), floor, 0)
			}
			if err := s.subscribe(f, []string{""}, since, start, gap); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.catchUp(ctx, keys, floor, gap); err != nil {
		return err
	}
	s.keys = keys
	return s.subscribeAll(keys, start.Add(-Overlap).Unix(), start, false)
}

// catchUp fetches keys' history with the pass machinery (paging, cursors,
// retry state) on this connection.
func (s *session) catchUp(ctx context.Context, keys []string, floor int64, gap bool) error {
	p := newPass(s.l.r, true)
	p.floor, p.gap = floor, gap
	pc := &passConn{link: s.link, conn: s.conn}
	p.conns = []*passConn{pc}
	for _, f := range []*family{&trustFamily, &ratingsFamily} {
		if err := p.fetchRelay(ctx, pc, f, keys, func(int) {}); err != nil {
			return err
		}
	}
	if pc.failure != nil {
		return pc.failure
	}
	s.mu.Lock()
	s.lastGood = s.l.r.cfg.Clock.Now()
	s.mu.Unlock()
	return nil
}

// subscribeAll opens live filters for keys: batches of BatchSize, or fewer,
// larger filters when that would pass MaxLiveFilters.
func (s *session) subscribeAll(keys []string, since int64, opened time.Time, gap bool) error {
	fams := []*family{&trustFamily, &ratingsFamily}
	size := BatchSize
	if n := (len(keys) + BatchSize - 1) / BatchSize * len(fams); n > MaxLiveFilters {
		perFamily := MaxLiveFilters / len(fams)
		size = (len(keys) + perFamily - 1) / perFamily
	}
	for chunk := range slices.Chunk(keys, size) {
		for _, f := range fams {
			if err := s.subscribe(f, chunk, since, opened, gap); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *session) subscribe(f *family, keys []string, since int64, opened time.Time, gap bool) error {
	ls := &liveSub{fam: f, keys: keys, opened: opened, gap: gap}
	filter := f.filter(keys)
	ts := nostr.Timestamp(max(since, 0))
	filter.Since = &ts
	sub, err := s.conn.Subscribe(nostr.Filters{filter}, relay.Handler{
		Event: func(ev *nostr.Event) { s.enqueue(liveItem{ev: ev, sub: ls}, ls.live()) },
		EOSE:  func() { s.enqueue(liveItem{sub: ls}, false) },
		Closed: func(reason string) {
			s.l.r.cfg.Log.Warn("relay closed a live subscription", "relay", s.url, "reason", reason)
			s.l.r.setRelayState(s.url, status.StatePartial)
		},
	})
	if err != nil {
		return err
	}
	ls.sub = sub
	s.mu.Lock()
	s.subs = append(s.subs, ls)
	s.mu.Unlock()
	return nil
}

// follow applies a new author set: added authors are caught up and then
// subscribed (incrementally while under MaxLiveFilters); removed authors
// make the filters be rebuilt.
func (s *session) follow(ctx context.Context, next []string) error {
	var added []string
	for _, k := range next {
		if _, found := slices.BinarySearch(s.keys, k); !found {
			added = append(added, k)
		}
	}
	removed := len(s.keys)+len(added) != len(next)
	start := s.l.r.cfg.Clock.Now()
	if len(added) > 0 {
		if err := s.catchUp(ctx, added, 0, false); err != nil {
			return err
		}
	}
	s.mu.Lock()
	current := len(s.subs)
	s.mu.Unlock()
	extra := (len(added) + BatchSize - 1) / BatchSize * 2
	s.keys = next
	if !removed && current+extra <= MaxLiveFilters {
		for chunk := range slices.Chunk(added, BatchSize) {
			for _, f := range []*family{&trustFamily, &ratingsFamily} {
				if err := s.subscribe(f, chunk, start.Add(-Overlap).Unix(), start, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	s.closeSubs()
	return s.subscribeAll(next, start.Add(-reconnectWindow).Unix(), start, false)
}

// enqueue runs on the read loop. History (before EOSE) waits for room:
// flow control. Live events never wait: a full queue is back-pressure.
func (s *session) enqueue(it liveItem, live bool) {
	if live {
		select {
		case s.queue <- it:
		default:
			select {
			case s.overflow <- struct{}{}:
			default:
			}
		}
		return
	}
	select {
	case s.queue <- it:
	case <-s.conn.Done():
	}
}

// barrier waits until everything queued so far was ingested.
func (s *session) barrier(ctx context.Context) {
	done := make(chan struct{})
	select {
	case s.queue <- liveItem{done: done}:
	case <-ctx.Done():
		return
	case <-s.conn.Done():
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-s.conn.Done():
	}
}

func (s *session) closeSubs() {
	s.mu.Lock()
	subs := s.subs
	s.subs = nil
	s.mu.Unlock()
	for _, ls := range subs {
		ls.sub.Close()
	}
}

// flush ingests queued events in batches and checkpoints a subscription's
// cursors at its EOSE, once everything before it is committed.
func (s *session) flush(ctx context.Context) {
	r := s.l.r
	rc := r.metrics.relay(s.url)
	var evs []*nostr.Event
	var gapCount int64
	ingest := func() bool {
		if len(evs) == 0 {
			return true
		}
		_, err := r.cfg.Sink.Ingest(ctx, s.url, evs)
		if err != nil {
			r.cfg.Log.Warn("live ingest failed", "relay", s.url, "err", err)
			evs, gapCount = evs[:0], 0
			return false
		}
		rc.eventsLive.Add(int64(len(evs)) - gapCount)
		rc.gapFill.Add(gapCount)
		evs, gapCount = evs[:0], 0
		s.mu.Lock()
		s.lastGood = r.cfg.Clock.Now()
		s.mu.Unlock()
		return true
	}
	ok := true
	for {
		var it liveItem
		select {
		case it = <-s.queue:
		case <-s.conn.Done():
			// Drain what arrived before the drop, then stop.
			for len(s.queue) > 0 {
				if it = <-s.queue; it.ev != nil {
					evs = append(evs, it.ev)
				}
			}
			ingest()
			return
		}
		if it.ev != nil {
			evs = append(evs, it.ev)
			if it.sub.gap {
				gapCount++
			}
			if len(evs) < 500 && len(s.queue) > 0 {
				continue
			}
			ok = ingest() && ok
			continue
		}
		ok = ingest() && ok
		if it.done != nil {
			close(it.done)
			continue
		}
		it.sub.mu.Lock()
		it.sub.eosed = true
		it.sub.mu.Unlock()
		if ok {
			now := r.cfg.Clock.Now()
			if err := r.cfg.Store.SaveCursors(completed(s.url, it.sub.fam.scope, it.sub.keys, map[string]store.Cursor{}, it.sub.opened, now)); err != nil {
				r.cfg.Log.Warn("save live cursors", "relay", s.url, "err", err)
			}
		}
		ok = true
	}
}
