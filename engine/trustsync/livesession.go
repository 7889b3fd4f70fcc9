package trustsync

import (
	"context"
	"slices"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
)

// liveSub labels one group of live filters: a family's keys, and what its
// EOSE means for their cursors.
type liveSub struct {
	fam    *family
	keys   []string
	opened time.Time  // everything created before this is held at EOSE
	gap    bool       // opened to fill a gap: its stored events count as gap events
	seen   newestSeen // newest created_at received per key; its EOSE checkpoint's only
}

// liveRelay is trust sync's part in one relay's relay.Session: its filters
// (the frontier's authors or the global families), its catch-up (the pass
// machinery: paging, cursors, retry state) and its cursors, checkpointed at
// each group's EOSE.
type liveRelay struct {
	l   *live
	url string
	rc  *relayCounters

	keys []string // authors subscribed (frontier mode); connection hooks and Consolidate only
}

// Open catches the connection up and subscribes: after a drop (since > 0)
// from the last good moment − 15 min, the gap's events counted as such.
func (lr *liveRelay) Open(ctx context.Context, lc *relay.LiveConn, since int64) error {
	return lr.open(ctx, lc, lr.l.currentAuthors(), since, since != 0)
}

// Reopen re-reads from the cursors, which only moved at EOSE, after
// back-pressure lost live events.
func (lr *liveRelay) Reopen(ctx context.Context, lc *relay.LiveConn, _ int64) error {
	return lr.open(ctx, lc, lr.keys, 0, true)
}

// Update follows a new author set (the frontier watcher's wake).
func (lr *liveRelay) Update(ctx context.Context, lc *relay.LiveConn) error {
	if lr.l.global {
		return nil
	}
	return lr.follow(ctx, lc, lr.l.currentAuthors())
}

// Consolidate is every author's filters in few groups; the set sets since.
func (lr *liveRelay) Consolidate() []relay.Group {
	return lr.groups(lr.keys, 0, lr.l.r.cfg.Clock.Now())
}

// Received counts the event and notes its key's newest created_at.
func (lr *liveRelay) Received(label any, ev *nostr.Event) {
	ls := label.(*liveSub)
	if ls.gap {
		lr.rc.gapFill.Add(1)
	} else {
		lr.rc.eventsLive.Add(1)
	}
	if ls.seen == nil {
		ls.seen = newestSeen{}
	}
	ls.seen.add(ls.fam, []*nostr.Event{ev})
}

// EOSE saves the group's cursors once all its events are committed.
func (lr *liveRelay) EOSE(label any, ok bool) {
	if !ok {
		return
	}
	r, ls := lr.l.r, label.(*liveSub)
	prev, err := r.cfg.Store.Cursors(lr.url, ls.fam.scope, ls.keys)
	if err == nil {
		err = r.cfg.Store.SaveCursors(completed(lr.url, ls.fam.scope, ls.keys, prev, ls.seen, ls.opened, r.cfg.Clock.Now()))
	}
	if err != nil {
		r.cfg.Log.Warn("save live cursors", "relay", lr.url, "err", err)
	}
}

// open subscribes for keys: frontier authors are first caught up with paged
// REQs (history, cursors moved at EOSE), then followed live from the catch-up
// start; global filters are subscribed from their cursor (or now − overlap).
func (lr *liveRelay) open(ctx context.Context, lc *relay.LiveConn, keys []string, floor int64, gap bool) error {
	r := lr.l.r
	start := r.cfg.Clock.Now()
	if lr.l.global {
		var groups []relay.Group
		for _, f := range []*family{&globalTrust, &globalRatings, &globalClaims} {
			since := start.Add(-Overlap).Unix()
			cs, err := r.cfg.Store.Cursors(lr.url, f.scope, []string{""})
			if err != nil {
				return relay.Local(err)
			}
			if c, ok := cs[""]; ok {
				since = max(c.LastSeenCreatedAt-int64(Overlap/time.Second), floor, 0)
			}
			groups = append(groups, liveGroup(&liveSub{fam: f, keys: []string{""}, opened: start, gap: gap}, since))
		}
		return lc.Set.Replace(groups)
	}
	if err := lr.catchUp(ctx, lc, keys, floor, gap); err != nil {
		return err
	}
	lr.keys = keys
	return lc.Set.Replace(lr.groups(keys, start.Add(-Overlap).Unix(), start))
}

// catchUp fetches keys' history with the pass machinery (paging, cursors,
// retry state) on this connection. A failure of the store or the pipeline
// is ours (relay.Local), not the relay's.
func (lr *liveRelay) catchUp(ctx context.Context, lc *relay.LiveConn, keys []string, floor int64, gap bool) error {
	p := newPass(lr.l.r, true)
	p.floor, p.gap = floor, gap
	pc := &passConn{link: lc.Link(), conn: lc.Conn}
	p.conns = []*passConn{pc}
	for _, f := range []*family{&trustFamily, &ratingsFamily} {
		if err := p.fetchRelay(ctx, pc, f, keys, func(int) {}); err != nil {
			return relay.Local(err)
		}
	}
	if pc.failure != nil {
		return pc.failure
	}
	lc.Good(p.start)
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
func (lr *liveRelay) groups(keys []string, since int64, opened time.Time) []relay.Group {
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
// removed authors make the filters be rebuilt. Added authors whose history
// the newcomers watcher just fetched from this relay are not fetched again:
// they are subscribed from when that fetch began (newcomers.takeGiven).
func (lr *liveRelay) follow(ctx context.Context, lc *relay.LiveConn, next []string) error {
	var added []string
	for _, k := range next {
		if _, found := slices.BinarySearch(lr.keys, k); !found {
			added = append(added, k)
		}
	}
	removed := len(lr.keys)+len(added) != len(next)
	start := lr.l.r.cfg.Clock.Now()
	from := start // the live filters of added authors reach back to here, less the overlap
	if len(added) > 0 {
		given, at, err := lr.l.r.newcomers.takeGiven(ctx, lr.url, added)
		if err != nil {
			return err
		}
		if !at.IsZero() && at.Before(from) {
			from = at
		}
		if rest := slices.DeleteFunc(slices.Clone(added), func(k string) bool { return given[k] }); len(rest) > 0 {
			if err := lr.catchUp(ctx, lc, rest, 0, false); err != nil {
				return err
			}
		}
	}
	lr.keys = next
	if removed {
		since := min(start.Add(-relay.ReconnectWindow).Unix(), from.Add(-Overlap).Unix())
		return lc.Set.Replace(lr.groups(next, since, start))
	}
	if len(added) == 0 {
		return nil
	}
	fams := []*family{&trustFamily, &ratingsFamily}
	return lc.Set.Add(ctx, familyGroups(fams, added, BatchSize, from.Add(-Overlap).Unix(), start))
}
