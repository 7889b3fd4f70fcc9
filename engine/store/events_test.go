package store

import (
	"context"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func TestSlotReductionAddressable(t *testing.T) {
	s, _ := openTemp(t)
	alice, bob := hex64("alice"), hex64("bob")
	ctx := context.Background()

	first := trustEvent(alice, bob, "1", 1000)
	first.Tags = append(first.Tags, nostr.Tag{"t", "only-first"})
	first.ID = first.GetID()
	if r := save(t, s, first)[0]; r != (SaveResult{Outcome: Stored}) {
		t.Fatalf("first: %+v", r)
	}

	older := trustEvent(alice, bob, "-1", 999)
	if r := save(t, s, older)[0]; r.Outcome != Superseded || r.Replaced != "" {
		t.Fatalf("older: %+v, want Superseded", r)
	}
	mustHave(t, s, older.ID, false)

	newer := trustEvent(alice, bob, "0", 1001)
	if r := save(t, s, newer)[0]; r.Outcome != Stored || r.Replaced != first.ID {
		t.Fatalf("newer: %+v, want Stored replacing first", r)
	}
	mustHave(t, s, first.ID, false)
	mustHave(t, s, newer.ID, true)
	if evs, err := s.Query(ctx, nostr.Filter{Tags: nostr.TagMap{"t": {"only-first"}}}, 0); err != nil || len(evs) != 0 {
		t.Fatalf("loser still reachable through the tag index: %d events, err %v", len(evs), err)
	}
	if evs, err := s.Query(ctx, nostr.Filter{Tags: nostr.TagMap{"p": {bob}}}, 0); err != nil || len(evs) != 1 || evs[0].ID != newer.ID {
		t.Fatalf("#p query after replacement: %v, err %v", ids(evs), err)
	}

	// Same created_at: the lexically lower id wins, whichever arrives first.
	tieA, tieB := lowerFirst(trustEvent(alice, bob, "1", 1002), trustEvent(alice, bob, "-1", 1002))
	if r := save(t, s, tieB)[0]; r.Outcome != Stored || r.Replaced != newer.ID {
		t.Fatalf("tie higher id first: %+v", r)
	}
	if r := save(t, s, tieA)[0]; r.Outcome != Stored || r.Replaced != tieB.ID {
		t.Fatalf("tie lower id: %+v, want Stored replacing the higher id", r)
	}
	tieC := trustEvent(alice, bob, "0", 1002)
	for tieC.ID < tieA.ID {
		tieC = trustEvent(alice, bob, "0", 1002)
	}
	if r := save(t, s, tieC)[0]; r.Outcome != Superseded {
		t.Fatalf("tie with higher id than winner: %+v, want Superseded", r)
	}

	// A delete (empty value) is a winner like any other and blocks older values.
	del := trustEvent(alice, bob, "", 2000)
	if r := save(t, s, del)[0]; r.Outcome != Stored || r.Replaced != tieA.ID {
		t.Fatalf("delete: %+v", r)
	}
	if r := save(t, s, trustEvent(alice, bob, "1", 1500))[0]; r.Outcome != Superseded {
		t.Fatalf("older statement after delete: %+v, want Superseded", r)
	}
	mustHave(t, s, del.ID, true)

	// Another d or another author is another slot.
	other := trustEvent(alice, hex64("carol"), "1", 10)
	byBob := trustEvent(bob, bob, "1", 10)
	for _, r := range save(t, s, other, byBob) {
		if r != (SaveResult{Outcome: Stored}) {
			t.Fatalf("other slots: %+v", r)
		}
	}
	if n, err := s.Count(ctx, nostr.Filter{Kinds: []int{32009}}); err != nil || n != 3 {
		t.Fatalf("stored 32009 = %d (err %v), want 3 slot winners", n, err)
	}
	checkTagIndex(t, s)
}

func TestSlotReductionWithinBatch(t *testing.T) {
	s, _ := openTemp(t)
	alice, bob := hex64("alice"), hex64("bob")

	old, mid, newest := trustEvent(alice, bob, "1", 100), trustEvent(alice, bob, "1", 200), trustEvent(alice, bob, "1", 300)
	res := save(t, s, mid, old, newest)
	want := []SaveResult{{Outcome: Stored}, {Outcome: Superseded}, {Outcome: Stored, Replaced: mid.ID}}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("result %d = %+v, want %+v", i, res[i], want[i])
		}
	}
	mustHave(t, s, mid.ID, false)
	mustHave(t, s, newest.ID, true)
	checkTagIndex(t, s)
}

func TestSlotReductionReplaceable(t *testing.T) {
	s, _ := openTemp(t)
	alice := hex64("alice")
	// 10011 is replaceable: the slot is (kind, pubkey), a d tag does not split it.
	c1 := mkEvent(10011, alice, 100, nostr.Tag{"i", "twitter:alice", "proof1"})
	c2 := mkEvent(10011, alice, 200, nostr.Tag{"d", "ignored"}, nostr.Tag{"i", "twitter:alice2", "proof2"})
	c0 := mkEvent(10011, alice, 50)
	res := save(t, s, c1, c2, c0)
	if res[0].Outcome != Stored || res[1] != (SaveResult{Outcome: Stored, Replaced: c1.ID}) || res[2].Outcome != Superseded {
		t.Fatalf("results %+v", res)
	}
	bobs := mkEvent(10011, hex64("bob"), 10)
	if r := save(t, s, bobs)[0]; r != (SaveResult{Outcome: Stored}) {
		t.Fatalf("other author's 10011: %+v", r)
	}
	n, err := s.Count(context.Background(), nostr.Filter{Kinds: []int{10011}})
	if err != nil || n != 2 {
		t.Fatalf("stored 10011 = %d (err %v), want 2", n, err)
	}
	checkTagIndex(t, s)
}

func TestNonReplaceableKindsAllKept(t *testing.T) {
	s, _ := openTemp(t)
	alice := hex64("alice")
	var evs []*nostr.Event
	for i := 0; i < 5; i++ {
		evs = append(evs, mkEvent(1, alice, 100, nostr.Tag{"d", "same"}))
	}
	for i, r := range save(t, s, evs...) {
		if r != (SaveResult{Outcome: Stored}) {
			t.Fatalf("event %d: %+v", i, r)
		}
	}
	if n, err := s.Count(context.Background(), nostr.Filter{Authors: []string{alice}}); err != nil || n != 5 {
		t.Fatalf("count = %d (err %v), want 5", n, err)
	}
}

func TestDuplicates(t *testing.T) {
	s, _ := openTemp(t)
	alice := hex64("alice")
	note := mkEvent(1, alice, 100, nostr.Tag{"p", alice})
	stmt := trustEvent(alice, hex64("bob"), "1", 100)

	res := save(t, s, note, stmt, note, stmt)
	want := []Outcome{Stored, Stored, Duplicate, Duplicate}
	for i := range want {
		if res[i].Outcome != want[i] || res[i].Replaced != "" {
			t.Errorf("in-batch result %d = %+v, want %v", i, res[i], want[i])
		}
	}
	for _, r := range save(t, s, note, stmt) {
		if r.Outcome != Duplicate {
			t.Errorf("resent: %+v, want Duplicate", r)
		}
	}
	if n, err := s.Count(context.Background(), nostr.Filter{}); err != nil || n != 2 {
		t.Fatalf("count = %d (err %v), want 2", n, err)
	}
	checkTagIndex(t, s)
}

func TestStoredEventRoundTrip(t *testing.T) {
	s, _ := openTemp(t)
	ev := trustEvent(hex64("alice"), hex64("bob"), "1", 1700000000)
	ev.Content = "quoted \"content\" with unicode ✓ and \n newline"
	ev.ID = ev.GetID()
	save(t, s, ev)
	got, err := s.Query(context.Background(), nostr.Filter{IDs: []string{ev.ID}}, 0)
	if err != nil || len(got) != 1 {
		t.Fatalf("query: %d events, err %v", len(got), err)
	}
	g := got[0]
	if g.ID != ev.ID || g.PubKey != ev.PubKey || g.CreatedAt != ev.CreatedAt || g.Kind != ev.Kind ||
		g.Content != ev.Content || g.Sig != ev.Sig || g.GetID() != ev.ID {
		t.Fatalf("round trip changed the event:\n got %+v\nwant %+v", g, ev)
	}
}

// Removing a loser's tag index rows must seek the (hash, rid) key, never scan
// the index: event_tags holds about ten rows per stored event.
func TestUnindexTagsSeeksKey(t *testing.T) {
	s, _ := openTemp(t)
	plan := queryPlan(t, s, unindexTagsSQL, `[1,2]`, 7)
	t.Logf("%s", strings.Join(plan, " | "))
	if len(plan) == 0 || !strings.HasPrefix(plan[0], "SEARCH event_tags USING PRIMARY KEY (hash=? AND rid=?)") {
		t.Fatalf("unindex plan: %v", plan)
	}
	for _, step := range plan {
		if strings.HasPrefix(step, "SCAN event_tags") {
			t.Fatalf("unindex scans the tag index: %v", plan)
		}
	}
}
