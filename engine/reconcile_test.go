package engine

import (
	"context"
	"testing"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// Authors that left the frontier while the app was stopped lose their
// cursors at the next start, so a return fetches them in full; authors
// still in it, and families keyed otherwise, keep theirs.
func TestStartForgetsCursorsOfAuthorsThatLeftWhileStopped(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	stays, goes, friend := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	eng := openQuiet(t, data)
	for _, root := range []string{stays.Pubkey, goes.Pubkey} {
		if err := eng.Modify(settings.AddRoot(root)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eng.Submit(context.Background(), goes.Trust(fixture.P(friend.Pubkey), "1", t0), "test"); err != nil {
		t.Fatal(err)
	}
	cursor := func(scope, author string) store.Cursor {
		return store.Cursor{CursorKey: store.CursorKey{Relay: "wss://relay.example", Scope: scope, Author: author}, LastEoseAt: t0}
	}
	if err := eng.store.SaveCursors([]store.Cursor{
		cursor("trust", stays.Pubkey), cursor("trust", goes.Pubkey), cursor("ratings", friend.Pubkey),
		cursor("claims", friend.Pubkey), cursor("discovery", "user:id:12345"),
	}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}

	// while stopped, the CLI removes a root: it and whom only it trusted leave
	st, err := store.Open(DatabasePath(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := settings.Modify(st, settings.RemoveRoot(goes.Pubkey)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	eng = openQuiet(t, data)
	defer eng.Close()
	for _, tc := range []struct {
		scope, author string
		kept          bool
	}{
		{"trust", stays.Pubkey, true},
		{"trust", goes.Pubkey, false},
		{"ratings", friend.Pubkey, false},
		{"claims", friend.Pubkey, true},
		{"discovery", "user:id:12345", true},
	} {
		got, err := eng.store.Cursors("wss://relay.example", tc.scope, []string{tc.author})
		if err != nil {
			t.Fatal(err)
		}
		if _, kept := got[tc.author]; kept != tc.kept {
			t.Errorf("%s cursor of %s…: kept %v, want %v", tc.scope, tc.author[:8], kept, tc.kept)
		}
	}
}
