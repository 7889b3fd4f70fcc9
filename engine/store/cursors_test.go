package store

import (
	"fmt"
	"testing"
)

// Asked for more authors than it looks up by name, Cursors reads the whole
// range of the relay and scope and returns exactly the authors asked for
// that have a cursor there: not another relay's, scope's or author's.
func TestCursorsOfManyAuthors(t *testing.T) {
	s, _ := openTemp(t)
	author := func(i int) string { return hex64(fmt.Sprint("author", i)) }
	var cs []Cursor
	for i := range cursorRangeMin + 1000 {
		cs = append(cs, Cursor{CursorKey: CursorKey{Relay: "wss://a", Scope: "trust", Author: author(i)}, LastEoseAt: int64(i + 1)},
			Cursor{CursorKey: CursorKey{Relay: "wss://b", Scope: "trust", Author: author(i)}, LastEoseAt: 1},
			Cursor{CursorKey: CursorKey{Relay: "wss://a", Scope: "ratings", Author: author(i)}, LastEoseAt: 1})
	}
	if err := s.SaveCursors(cs); err != nil {
		t.Fatal(err)
	}
	var asked []string
	for i := 500; i < cursorRangeMin+1500; i++ { // the last 500 have no cursor
		asked = append(asked, author(i))
	}
	got, err := s.Cursors("wss://a", "trust", asked)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != cursorRangeMin+500 {
		t.Fatalf("%d cursors, want %d", len(got), cursorRangeMin+500)
	}
	for i := 500; i < cursorRangeMin+1000; i++ {
		if c, ok := got[author(i)]; !ok || c.LastEoseAt != int64(i+1) || c.Relay != "wss://a" || c.Scope != "trust" {
			t.Fatalf("author %d: %+v %v", i, c, ok)
		}
	}
}

// Completed names the asked authors whose cursor of the scope reached EOSE on
// one of the relays given, whether they are looked up by name or picked
// from the whole range.
func TestCompletedAuthors(t *testing.T) {
	s, _ := openTemp(t)
	author := func(i int) string { return hex64(fmt.Sprint("author", i)) }
	var cs []Cursor
	for i := range cursorRangeMin + 1000 {
		var eose int64
		if i%3 != 0 {
			eose = 1 // a third never reached EOSE on a: paged, then failed
		}
		cs = append(cs, Cursor{CursorKey: CursorKey{Relay: "wss://a", Scope: "trust", Author: author(i)}, LastEoseAt: eose},
			Cursor{CursorKey: CursorKey{Relay: "wss://a", Scope: "ratings", Author: author(i)}, LastEoseAt: 1})
		if i%6 == 0 {
			cs = append(cs, Cursor{CursorKey: CursorKey{Relay: "wss://b", Scope: "trust", Author: author(i)}, LastEoseAt: 1})
		}
		if i%9 == 0 {
			cs = append(cs, Cursor{CursorKey: CursorKey{Relay: "wss://gone", Scope: "trust", Author: author(i)}, LastEoseAt: 1})
		}
	}
	if err := s.SaveCursors(cs); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{20, cursorRangeMin + 500} {
		var asked []string
		for i := 500; i < 500+n; i++ { // past cursorRangeMin+1000: no cursor at all
			asked = append(asked, author(i))
		}
		got, err := s.Completed([]string{"wss://a", "wss://b"}, "trust", asked)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for i := 500; i < 500+n; i++ {
			done := i < cursorRangeMin+1000 && (i%3 != 0 || i%6 == 0)
			if got[author(i)] != done {
				t.Fatalf("%d asked: author %d completed %v, want %v", n, i, got[author(i)], done)
			}
			if done {
				want++
			}
		}
		if len(got) != want {
			t.Fatalf("%d asked: %d completed, want %d (none outside the asked)", n, len(got), want)
		}
	}
}
