package trustsync

import (
	"cmp"
	"context"
	"slices"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/store"
)

// reconcile runs a batch with NIP-77 (a full one on the daily refresh, any
// batch of keys fetched before when wide): the relay's set is our held
// events minus those it lacks plus the ones we lack, which alone are
// fetched (by id). The set is then handed to onPage newest first in
// pages, as paging would send it, so dedupe, caps and cursors work alike;
// the ids put in held are already stored and are not ingested again.
// relay.ErrNotReconciled or a refusal (the relay is remembered as not doing
// NIP-77) leave the batch to paging, with nothing handed to onPage.
func (p *pass) reconcile(ctx context.Context, pc *passConn, f *family, filter nostr.Filter, held map[string]bool, onPage func([]*nostr.Event) error, wide bool) error {
	lim := relay.PagedQuery
	if wide {
		slots := pc.reconcileSlots()
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		case <-ctx.Done():
			return ctx.Err()
		}
		lim = relay.HeldLimit{Max: wideHeldMax, Empty: true}
	}
	local, rec, err := relay.ReconcileHeld(ctx, pc.link, pc.conn, filter, lim, func(max int) ([]store.AuthoredStamp, error) {
		// only families keyed by tag values need the tags to find cursor keys
		return p.r.cfg.Store.AuthoredStamps(ctx, filter, max, f.eventKeys != nil)
	}, store.StampPairs[store.AuthoredStamp], &pc.refresh)
	if relay.IsReconcileRefused(err) {
		p.r.cfg.Log.Info("relay refused NIP-77; paging", "relay", pc.link.URL(), "err", err)
	}
	if err != nil {
		return err
	}

	var set []*nostr.Event
	st, err := pc.conn.FetchIDs(ctx, filter, rec.Need, func(evs []*nostr.Event) error {
		set = append(set, evs...)
		return nil
	})
	pc.link.Fetched(st)
	if err != nil {
		return err
	}
	for _, st := range local {
		if _, lacks := slices.BinarySearch(rec.Lacking, st.ID); !lacks {
			held[st.ID] = true
			set = append(set, heldStub(st))
		}
	}
	slices.SortFunc(set, newestFirst)
	for page := range slices.Chunk(set, relay.PageLimit) {
		if err := onPage(page); err != nil {
			return err
		}
	}
	return nil
}

// heldStub stands for a held event in the relay's set: enough to count it
// and find its cursor keys (id, author, created_at, tags), never ingested.
func heldStub(st store.AuthoredStamp) *nostr.Event {
	return &nostr.Event{ID: st.ID, PubKey: st.PubKey, CreatedAt: st.CreatedAt, Tags: st.Tags}
}

// newestFirst is NIP-01's order: created_at descending, then id ascending.
func newestFirst(a, b *nostr.Event) int {
	if c := cmp.Compare(b.CreatedAt, a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}
