package trustsync

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
)

// liveSub labels one group of live filters: a family's keys, and what its
// EOSE means for their cursors.
type liveSub struct {
	fam    *family
	keys   []string
	opened time.Time  // everything created before this is held at EOSE
	gap    bool       // opened to fill a gap: its stored events count as gap events
	seen   newestSeen // newest created_at received per key; the flush's only
}

// session is one live connection; its subscriptions are a relay.LiveSet.
type session struct {
	l    *live
	url  string
	link *relay.Link
	conn *relay.Conn
	set  *relay.LiveSet

	keys     []string // authors subscribed (frontier mode); read by the set's Consolidate
	mu       sync.Mutex
	lastGood time.Time // last moment everything received was ingested
}

func newSession(l *live, link *relay.Link, conn *relay.Conn) *session {
	s := &session{l: l, url: link.URL(), link: link, conn: conn}
	r := l.r
	s.set = relay.NewLiveSet(conn, relay.LiveOptions{
		Clock:    r.cfg.Clock,
		QueueCap: r.cfg.QueueCap,
		Consolidate: func() []relay.Group {
			return s.groups(s.keys, 0, r.cfg.Clock.Now()) // the set sets since
		},
		OnRefused: func(reason string, until time.Time) {
			r.cfg.Log.Warn("relay refused live subscriptions; asking again later with fewer REQs",
				"relay", s.url, "reason", reason, "until", until)
			r.setRelayState(s.url, status.StatePartial)
		},
		OnClosed: func(reason string) {
			r.cfg.Log.Warn("relay closed a live subscription; reopening it after a backoff", "relay", s.url, "reason", reason)
			r.setRelayState(s.url, status.StatePartial)
		},
		OnReopened: func() { r.setRelayState(s.url, status.StateLive) },
	})
	return s
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
		s.set.CloseAll()
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
		case <-s.set.Overflowed():
			// Back-pressure: stop the stream, drain what is queued, then
			// re-read from the cursors (which only moved at EOSE).
			s.l.r.setRelayState(s.url, status.StatePartial)
			s.set.CloseAll()
			s.set.Drain(ctx)
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

func (s *session) markGood() {
	s.mu.Lock()
	s.lastGood = s.l.r.cfg.Clock.Now()
	s.mu.Unlock()
}

// open subscribes for keys: frontier authors are first caught up with paged
// REQs (history, cursors moved at EOSE), then followed live from the catch-up
// start; global filters are subscribed from their cursor (or now − overlap).
func (s *session) open(ctx context.Context, keys []string, floor int64, gap bool) error {
	r := s.l.r
	start := r.cfg.Clock.Now()
	if s.l.global {
		var groups []relay.Group
		for _, f := range []*family{&globalTrust, &globalRatings, &globalClaims} {
			since := start.Add(-Overlap).Unix()
			cs, err := r.cfg.Store.Cursors(s.url, f.scope, []string{""})
			if err != nil {
				return err
			}
			if c, ok := cs[""]; ok {
				since = max(c.LastSeenCreatedAt-int64(Overlap/time.Second), floor, 0)
			}
			groups = append(groups, liveGroup(&liveSub{fam: f, keys: []string{""}, opened: start, gap: gap}, since))
		}
		return s.set.Replace(groups)
	}
	if err := s.catchUp(ctx, keys, floor, gap); err != nil {
		return err
	}
	s.keys = keys
	return s.set.Replace(s.groups(keys, start.Add(-Overlap).Unix(), start))
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
	s.markGood()
	return nil
}

// liveFilterKeys is the most authors one live filter names: strfry serves
// authors × kinds below 1,000 from its (pubkey, kind) index (above, it reads
// every event of the authors), and 900 keys (60 KiB) fit a relay's 128 KiB
// message.
const liveFilterKeys = 900

// groups are the live filters for keys: batches of BatchSize, or fewer,
// larger filters (up to liveFilterKeys) when that would pass
// relay.MaxLiveFilters.
func (s *session) groups(keys []string, since int64, opened time.Time) []relay.Group {
	fams := []*family{&trustFamily, &ratingsFamily}
	size := BatchSize
	if n := (len(keys) + BatchSize - 1) / BatchSize * len(fams); n > relay.MaxLiveFilters {
		perFamily := relay.MaxLiveFilters / len(fams)
		size = min((len(keys)+perFamily-1)/perFamily, liveFilterKeys)
	}
	return familyGroups(fams, keys, size, since, opened)
}

// familyGroups is one group per family per chunk of size keys.
func familyGroups(fams []*family, keys []string, size int, since int64, opened time.Time) []relay.Group {
	var out []relay.Group
	for chunk := range slices.Chunk(keys, size) {
		for _, f := range fams {
			out = append(out, liveGroup(&liveSub{fam: f, keys: chunk, opened: opened}, since))
		}
	}
	return out
}

func liveGroup(ls *liveSub, since int64) relay.Group {
	filter := ls.fam.filter(ls.keys)
	ts := nostr.Timestamp(max(since, 0))
	filter.Since = &ts
	return relay.Group{Label: ls, Filters: nostr.Filters{filter}}
}

// follow applies a new author set: added authors are caught up and then
// subscribed incrementally (the set keeps within the relay's allowance);
// removed authors make the filters be rebuilt.
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
	s.keys = next
	if removed {
		return s.set.Replace(s.groups(next, start.Add(-relay.ReconnectWindow).Unix(), start))
	}
	if len(added) == 0 {
		return nil
	}
	fams := []*family{&trustFamily, &ratingsFamily}
	return s.set.Add(ctx, familyGroups(fams, added, BatchSize, start.Add(-Overlap).Unix(), start))
}
