package trustsync

import (
	"context"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
)

// flush ingests the live set's events in batches and checkpoints a group's
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
		stored, err := r.cfg.Sink.Ingest(ctx, s.url, evs)
		r.links.Get(s.url).Stored(stored)
		if err != nil {
			r.cfg.Log.Warn("live ingest failed", "relay", s.url, "err", err)
			evs, gapCount = evs[:0], 0
			return false
		}
		rc.eventsLive.Add(int64(len(evs)) - gapCount)
		rc.gapFill.Add(gapCount)
		evs, gapCount = evs[:0], 0
		s.markGood()
		return true
	}
	items := s.set.Items()
	ok := true
	for {
		var it relay.Item
		select {
		case it = <-items:
		case <-s.conn.Done():
			// Drain what arrived before the drop, then stop.
			for len(items) > 0 {
				if it = <-items; it.Event != nil {
					evs = append(evs, it.Event)
				}
				it.Done()
			}
			ingest()
			return
		}
		if it.Event != nil {
			evs = append(evs, it.Event)
			ls := it.Label.(*liveSub)
			if ls.gap {
				gapCount++
			}
			if ls.seen == nil {
				ls.seen = newestSeen{}
			}
			ls.seen.add(ls.fam, []*nostr.Event{it.Event})
			if len(evs) < 500 && len(items) > 0 {
				continue
			}
			ok = ingest() && ok
			continue
		}
		ok = ingest() && ok
		if !it.EOSE {
			it.Done()
			continue
		}
		if ok {
			s.checkpoint(it.Label.(*liveSub))
		}
		ok = true
	}
}

// checkpoint saves a group's cursors at its EOSE.
func (s *session) checkpoint(ls *liveSub) {
	r := s.l.r
	prev, err := r.cfg.Store.Cursors(s.url, ls.fam.scope, ls.keys)
	if err == nil {
		err = r.cfg.Store.SaveCursors(completed(s.url, ls.fam.scope, ls.keys, prev, ls.seen, ls.opened, r.cfg.Clock.Now()))
	}
	if err != nil {
		r.cfg.Log.Warn("save live cursors", "relay", s.url, "err", err)
	}
}
