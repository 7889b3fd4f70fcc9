package store

import (
	"fmt"
	"testing"
)

// A sweep is found for its relay, scope, keys and day only, and the store
// drops it when a cursor it could cover says otherwise: a failure, a
// completion before its day, a deletion of cursors or of the relay. A
// completion on its day keeps it, and a later day's sweep replaces it.
func TestSweepsFollowTheirCursors(t *testing.T) {
	s, _ := openTemp(t)
	const relay, day = "wss://a", int64(20000)
	if err := addRelay(s, relay); err != nil {
		t.Fatal(err)
	}
	a, b := hex64("a"), hex64("b")
	keys := SumKeys([]string{a, b})
	sweep := Sweep{Relay: relay, Scope: "trust", Keys: keys, Day: day, Checked: day*86400 + 100}
	record := func() {
		t.Helper()
		if err := s.SaveSweep(sweep); err != nil {
			t.Fatal(err)
		}
	}
	has := func(what string, relay, scope string, keys KeysSum, day int64, want bool) {
		t.Helper()
		got, ok, err := s.Sweep(relay, scope, keys, day)
		if err != nil || ok != want || (ok && got != sweep) {
			t.Fatalf("%s: sweep %+v found %v (err %v), want found %v", what, got, ok, err, want)
		}
	}
	cursor := func(author string, eoseDay int64, attempts int) Cursor {
		return Cursor{CursorKey: CursorKey{Relay: relay, Scope: "trust", Author: author}, LastEoseAt: eoseDay*86400 + 500, Attempts: attempts}
	}
	save := func(cs ...Cursor) {
		t.Helper()
		if err := s.SaveCursors(cs); err != nil {
			t.Fatal(err)
		}
	}

	record()
	has("recorded", relay, "trust", keys, day, true)
	has("another day", relay, "trust", keys, day+1, false)
	has("other keys", relay, "trust", SumKeys([]string{a}), day, false)
	has("another scope", relay, "ratings", keys, day, false)
	has("another relay", "wss://b", "trust", keys, day, false)

	save(cursor(a, day, 0), Cursor{CursorKey: CursorKey{Relay: relay, Scope: "ratings", Author: b}, Attempts: 1})
	has("a completion that day, and another scope's failure", relay, "trust", keys, day, true)
	save(cursor(b, day-1, 0))
	has("a cursor set back a day", relay, "trust", keys, day, false)
	record()
	save(cursor(b, day, 2))
	has("a failure", relay, "trust", keys, day, false)

	record()
	if err := s.DeleteCursorsForAuthors([]string{a}); err != nil {
		t.Fatal(err)
	}
	has("an author's cursors deleted", relay, "trust", keys, day, false)
	record()
	if _, err := s.DeleteCursorsOutside([]string{"trust"}, []string{a}); err != nil {
		t.Fatal(err)
	}
	has("cursors outside a frontier deleted", relay, "trust", keys, day, false)
	record()
	if err := removeRelay(s, relay); err != nil {
		t.Fatal(err)
	}
	has("the relay removed", relay, "trust", keys, day, false)

	record()
	other := sweep
	other.Keys, other.Day = SumKeys([]string{b}), day+1
	if err := s.SaveSweep(other); err != nil {
		t.Fatal(err)
	}
	has("a later day's sweep recorded", relay, "trust", keys, day, false)
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM sweeps`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d sweeps held (err %v), want the later day's only", n, err)
	}
}

// SumKeys tells sets apart, also those whose keys join to the same bytes.
func TestSumKeysNamesTheSet(t *testing.T) {
	sums := map[KeysSum]string{}
	for _, set := range [][]string{{}, {"ab"}, {"a", "b"}, {"ab", ""}, {"a", "bc"}} {
		sum := SumKeys(set)
		if prev, dup := sums[sum]; dup {
			t.Fatalf("%q and %s have one sum", set, prev)
		}
		sums[sum] = fmt.Sprintf("%q", set)
	}
}

// A union of sweeps is recorded only while every part still is.
func TestSweepOfPartsThatHold(t *testing.T) {
	s, _ := openTemp(t)
	const relay, day = "wss://a", int64(20000)
	a, b := hex64("a"), hex64("b")
	partA, partB, whole := SumKeys([]string{a}), SumKeys([]string{b}), SumKeys([]string{a, b})
	for _, part := range []KeysSum{partA, partB} {
		if err := s.SaveSweep(Sweep{Relay: relay, Scope: "trust", Keys: part, Day: day, Checked: day * 86400}); err != nil {
			t.Fatal(err)
		}
	}
	sw := Sweep{Relay: relay, Scope: "trust", Keys: whole, Day: day, Checked: day * 86400}
	if saved, err := s.SaveSweepOf(sw, []KeysSum{partA, SumKeys([]string{"c"})}); err != nil || saved {
		t.Fatalf("a union with a part never recorded: saved %v (err %v)", saved, err)
	}
	if err := s.SaveCursors([]Cursor{{CursorKey: CursorKey{Relay: relay, Scope: "ratings", Author: a}, Attempts: 1}}); err != nil {
		t.Fatal(err)
	}
	if saved, err := s.SaveSweepOf(sw, []KeysSum{partA, partB}); err != nil || !saved {
		t.Fatalf("a union of parts that hold: saved %v (err %v)", saved, err)
	}
	if _, ok, err := s.Sweep(relay, "trust", whole, day); err != nil || !ok {
		t.Fatalf("the union is not found: %v %v", ok, err)
	}
	if err := s.SaveCursors([]Cursor{{CursorKey: CursorKey{Relay: relay, Scope: "trust", Author: b}, Attempts: 1}}); err != nil {
		t.Fatal(err)
	}
	if saved, err := s.SaveSweepOf(sw, []KeysSum{partA, partB}); err != nil || saved {
		t.Fatalf("a union of parts a failure dropped: saved %v (err %v)", saved, err)
	}
}
