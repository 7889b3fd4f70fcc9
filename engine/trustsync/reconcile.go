package trustsync

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/store"
)

// errNotReconciled says reconciliation cannot help a batch: it is paged.
var errNotReconciled = errors.New("batch not reconciled")

// refreshStats count one relay's reconciliations in a pass (issue 12 item 5).
type refreshStats struct {
	attempts   atomic.Int64 // full batches offered to NIP-77
	reconciled atomic.Int64 // of them, reconciled
	ids        atomic.Int64 // ids whose presence reconciliation settled
	bytes      atomic.Int64 // negentropy frames received
}

// reconcile runs a full batch with NIP-77 (daily refresh): the relay's set
// is our held events minus those it lacks plus the ones we lack, which alone
// are fetched (by id). The set is then handed to onPage newest first in
// pages, as paging would send it, so dedupe, caps and cursors work alike;
// the ids put in held are already stored and are not ingested again.
// errNotReconciled or a refusal (the relay is remembered as not doing
// NIP-77) leave the batch to paging, with nothing handed to onPage.
func (p *pass) reconcile(ctx context.Context, pc *passConn, f *family, filter nostr.Filter, held map[string]bool, onPage func([]*nostr.Event) error) error {
	if pc.link.NIP77() == relay.NIP77Unsupported {
		return errNotReconciled
	}
	// only families keyed by tag values need the tags to find cursor keys
	local, err := p.r.cfg.Store.AuthoredStamps(ctx, filter, relay.ReconcileMax+1, f.eventKeys != nil)
	if err != nil {
		return err
	}
	if len(local) == 0 || len(local) > relay.ReconcileMax {
		return errNotReconciled // nothing held: paging is cheaper
	}
	pc.refresh.attempts.Add(1)
	rec, err := pc.link.Reconcile(ctx, pc.conn, filter, store.StampPairs(local))
	pc.refresh.bytes.Add(rec.Bytes)
	if relay.IsReconcileRefused(err) {
		p.r.cfg.Log.Info("relay refused NIP-77; paging", "relay", pc.link.URL(), "err", err)
	}
	if err != nil {
		return err
	}
	pc.refresh.reconciled.Add(1)
	pc.refresh.ids.Add(int64(len(local) + len(rec.Need)))

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
