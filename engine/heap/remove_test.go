package heap

import (
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/validation"
)

// applyEvents parses signed events as ingest does and applies them.
func applyEvents(t *testing.T, h *Heap, evs ...*nostr.Event) {
	t.Helper()
	p := parseBatch(evs)
	if p.skipped > 0 {
		t.Fatalf("%d fixture events do not parse", p.skipped)
	}
	h.Apply(p.stmts, p.claims)
}

// A removed winner leaves an empty slot: the broader context answers, the
// hop is gone, any later event of the slot fills it again (also an older
// one); a removed loser changes nothing; a removed 10011 claims nothing.
func TestRemoveEmptiesTheSlot(t *testing.T) {
	h := newHeap()
	alice, bob, carol := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	global := alice.Trust(fixture.P(bob.Pubkey), "-1", 100)
	scoped := alice.Trust(fixture.P(bob.Pubkey), "1", 200, fixture.Context("identity"))
	older := alice.Trust(fixture.P(bob.Pubkey), "0", 150, fixture.Context("identity"))
	hop := alice.Trust(fixture.P(carol.Pubkey), "1", 100)
	applyEvents(t, h, global, scoped, hop)
	if got := resolve(h, alice.Pubkey, "p", bob.Pubkey, validation.KindTrust, "identity", "", 1000); got != `1@"identity"` {
		t.Fatalf("before: %q", got)
	}
	version := h.Version()

	if c := h.Remove([]*nostr.Event{older}); c.Applied != 0 || h.Version() != version {
		t.Fatalf("removing an event that is no winner changed the heap: %+v", c)
	}
	c := h.Remove([]*nostr.Event{scoped, hop})
	if c.Applied != 2 || !c.HopsChanged || h.Version() != version+2 {
		t.Fatalf("Remove: %+v, version %d after %d", c, h.Version(), version)
	}
	if got := resolve(h, alice.Pubkey, "p", bob.Pubkey, validation.KindTrust, "identity", "", 1000); got != `-1@""` {
		t.Fatalf("after removing the identity statement the global one answers, got %q", got)
	}
	if hops := hopsOf(h, alice.Pubkey, 1000); len(hops) != 0 {
		t.Fatalf("hops after the hop's removal: %v", hops)
	}
	if got := h.Counts(); got.Statements != 1 {
		t.Fatalf("counts after removal: %+v", got)
	}
	applyEvents(t, h, older)
	if got := resolve(h, alice.Pubkey, "p", bob.Pubkey, validation.KindTrust, "identity", "", 1000); got != `0@"identity"` {
		t.Fatalf("an older event of an emptied slot: %q", got)
	}

	claim := carol.Claims("carol", "5", 100)
	applyEvents(t, h, claim)
	if h.Counts().Claims != 1 {
		t.Fatal("claim not applied")
	}
	if c := h.Remove([]*nostr.Event{claim}); c.Applied != 1 || h.Counts().Claims != 0 {
		t.Fatalf("removing the latest 10011: %+v %+v", c, h.Counts())
	}
}

// The edges a binding is read from (ids.hintEdges) follow the slots'
// winners: a statement with hints adds its edge, a newer one without takes
// it out, and so does a removed winner; an older event filling the empty
// slot brings it back. Each state is what a scan of every edge finds.
func TestHintEdgesFollowTheWinners(t *testing.T) {
	h := newHeap()
	a, b, owner := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	npub, err := nip19.EncodePublicKey(owner.Pubkey)
	if err != nil {
		t.Fatal(err)
	}
	x := fixture.Scopes("x.com")
	aHints := a.Trust(fixture.XUser("555", npub), "1", 100, x)
	bHints := b.Trust(fixture.XUser("555", npub), "1", 100, x)
	applyEvents(t, h, aHints, bHints)
	checkHintEdges(t, h, 2)
	applyEvents(t, h, a.Trust(fixture.XUser("555"), "1", 200, x))
	checkHintEdges(t, h, 1)
	if c := h.Remove([]*nostr.Event{bHints}); c.Applied != 1 {
		t.Fatalf("removing b's winner: %+v", c)
	}
	checkHintEdges(t, h, 0)
	applyEvents(t, h, bHints)
	checkHintEdges(t, h, 1)
}

// checkHintEdges compares ids.hintEdges with a scan of every edge, and the
// edges it holds in all with want.
func checkHintEdges(t *testing.T, h *Heap, want int) {
	t.Helper()
	scanned := map[NodeID][]uint32{}
	for ei := range uint32(h.edges.n) {
		if e := h.edges.at(ei); e.extra != 0 && len(h.extras[e.extra].hints) > 0 {
			scanned[e.subject] = append(scanned[e.subject], ei)
		}
	}
	held := 0
	for n, edges := range h.ids.hintEdges {
		held += len(edges)
		if got := slices.Sorted(slices.Values(edges)); !slices.Equal(got, scanned[n]) {
			t.Fatalf("node %d: hint edges %v, a scan finds %v", n, got, scanned[n])
		}
	}
	if held != want || len(h.ids.hintEdges) != len(scanned) {
		t.Fatalf("%d hint edges on %d nodes, want %d (a scan finds %d nodes)", held, len(h.ids.hintEdges), want, len(scanned))
	}
}
