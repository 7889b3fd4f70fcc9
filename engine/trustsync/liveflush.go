package trustsync

import (
	"context"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/store"
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
		_, err := r.cfg.Sink.Ingest(ctx, s.url, evs)
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
			if it.Label.(*liveSub).gap {
				gapCount++
			}
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
			ls := it.Label.(*liveSub)
			now := r.cfg.Clock.Now()
			if err := r.cfg.Store.SaveCursors(completed(s.url, ls.fam.scope, ls.keys, map[string]store.Cursor{}, ls.opened, now)); err != nil {
				r.cfg.Log.Warn("save live cursors", "relay", s.url, "err", err)
			}
		}
		ok = true
	}
}
