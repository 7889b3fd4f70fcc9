package heap

import (
	"context"

	"dtp-personal/engine/validation"
)

// Refill takes in, after a guardrail was raised (SetLimits), the stored
// statements the heap refused at the old one: the running heap is extended
// from the store, which is the truth, rather than rebuilt, so node ids stay
// valid for the frontier and the resolver, and memory grows only by what
// comes in (plus the batches being parsed), never to a second heap.
//
// Commits go on meanwhile and stay right: a stored event the scan read
// before a newer winner replaced it (a delete, v="", among them) is older
// than the slot's winner and ignored, as Apply ignores any older event; an
// event Remove took out meanwhile is recorded and left out. When nothing was
// refused at a guardrail during the refill, the limit reason is cleared and
// the returned change says hops changed (the frontier's walk is no longer
// held to its last one). Claims are never refused and are not read again.
func (h *Heap) Refill(ctx context.Context, src Source) (Change, error) {
	h.refillMu.Lock()
	defer h.refillMu.Unlock()
	h.lock()
	if h.limitReason == "" || h.edges.n >= h.edgeLimit {
		h.mu.Unlock()
		return Change{}, nil
	}
	refusals := h.refusals
	h.removed = map[string]struct{}{}
	h.mu.Unlock()
	defer func() {
		h.lock()
		h.removed = nil
		h.mu.Unlock()
	}()

	var c Change
	add := func(more Change) {
		c.Applied += more.Applied
		c.HopsChanged = c.HopsChanged || more.HopsChanged
	}
	_, err := h.load(ctx, src, []int{validation.KindTrust, validation.KindRating}, func(p parsedBatch) {
		h.lock()
		defer h.mu.Unlock()
		add(h.applyLocked(p.stmts, nil, h.removed))
	})
	if err != nil {
		return c, err
	}
	h.lock()
	defer h.mu.Unlock()
	// an X account's claimant refused a node at the limit gets one now
	for n := range h.ids.hinted {
		if h.recountClaimants(n) {
			h.noteAccountSpeakers(n)
			h.note(&c, true, true)
		}
	}
	if h.refusals == refusals {
		h.limitReason = ""
		c.HopsChanged = true
	}
	return c, nil
}
