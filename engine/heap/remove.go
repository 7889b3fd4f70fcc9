package heap

import (
	"encoding/hex"
	"math"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// Remove takes events the store no longer holds (pruned, deleted by a
// filter) out of the graph: a statement that is still its slot's winner
// leaves an empty slot, which reads as no statement (as a delete does: the
// broader context answers) and which any later event of the slot fills; a
// 10011 that is still its author's latest leaves the author with no claim.
// Nodes stay (NodeIDs are never reused); the memory of the slot is given
// back at the next start, when the heap is rebuilt from the store. A Refill
// running meanwhile leaves these events out.
func (h *Heap) Remove(evs []*nostr.Event) Change {
	p := parseBatch(evs)
	h.lock()
	defer h.mu.Unlock()
	if h.removed != nil { // a Refill runs: it must not bring these back
		for _, ev := range evs {
			h.removed[ev.ID] = struct{}{}
		}
	}
	var c Change
	note := func(removed, hops bool) {
		if removed {
			c.Applied++
			h.version++
		}
		c.HopsChanged = c.HopsChanged || hops
	}
	for _, s := range p.stmts {
		note(h.removeStatement(s))
	}
	for _, cl := range p.claims {
		note(h.removeClaims(cl))
	}
	return c
}

// removeStatement empties s's slot when s is its winner.
func (h *Heap) removeStatement(s *validation.Statement) (removed, hops bool) {
	kind := kindCodeTrust
	if s.Kind == validation.KindRating {
		kind = kindCodeRating
	}
	var id [32]byte
	if _, err := hex.Decode(id[:], []byte(s.ID)); err != nil || len(s.ID) != 64 {
		return false, false
	}
	authorKey, ok := pubkeyKey(s.Author)
	if !ok {
		return false, false
	}
	subjKey, ok := subjectKey(s.SubjectTag, s.Subject)
	if !ok {
		return false, false
	}
	author, authorHeld := h.nodeIdx[authorKey]
	subject, subjectHeld := h.nodeIdx[subjKey]
	ctx, ctxHeld := h.strIdx[s.Context]
	scope, scopeHeld := h.strIdx[validation.CanonicalScope(s.Scopes)]
	if !authorHeld || !subjectHeld || !ctxHeld || !scopeHeld {
		return false, false
	}
	ei, held := h.findSlot(slotKey{author: author, subject: subject, context: ctx, scope: scope, kind: kind})
	if !held {
		return false, false
	}
	e := h.edges.at(ei)
	if e.id != id {
		return false, false // a newer event holds the slot
	}
	wasHop := h.mayDecideHop(e)
	var oldHints []string
	if e.extra != 0 {
		oldHints = h.extras[e.extra].hints
		h.extras[e.extra] = edgeExtra{}
	}
	// an empty slot: older than any event, never active, no value
	e.createdAt, e.activeFrom, e.activeUntil, e.expires = math.MinInt64, 0, 0, false
	e.id, e.value, e.deleted = [32]byte{}, 0, true
	bindingChanged := h.updateHints(e.subject, ei, oldHints, nil)
	return true, wasHop || bindingChanged
}

// removeClaims forgets c when it is its author's latest 10011. The claim
// history (everClaimed) stays, as the store's claim_history does.
func (h *Heap) removeClaims(c *validation.Claims) (removed, hops bool) {
	held, ok := h.ids.claims[c.Author]
	if !ok || held.id != c.ID {
		return false, false
	}
	delete(h.ids.claims, c.Author)
	for _, id := range held.twitterIDs {
		if n, ok := h.nodeIdx[string(tagTyped)+xAccountPrefix+id]; ok {
			if _, hinted := h.ids.hinted[n]; hinted && h.recountClaimants(n) {
				hops = true
			}
		}
	}
	return true, hops
}
