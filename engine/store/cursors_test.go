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
