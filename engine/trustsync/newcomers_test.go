package trustsync

import (
	"fmt"
	"slices"
	"testing"

	"dtp-personal/engine/store"
)

// A track of the frontier as the last track saw it reads no cursor: what
// moved since came through the watched store. A forgotten member, or a
// changed frontier, is read from the store again.
func TestTrackOfAnUnchangedFrontierReadsNothing(t *testing.T) {
	const relay = "ws://127.0.0.1:1"
	st := openStore(t, relay)
	n := newNewcomers()
	watched := watchedStore{Store: st, n: n}
	a, b := fmt.Sprintf("%064x", 1), fmt.Sprintf("%064x", 2)
	done := func(author string) []store.Cursor {
		var cs []store.Cursor
		for _, scope := range []string{trustFamily.scope, ratingsFamily.scope} {
			cs = append(cs, store.Cursor{CursorKey: store.CursorKey{Relay: relay, Scope: scope, Author: author}, LastEoseAt: 100})
		}
		return cs
	}
	track := func(changed <-chan struct{}) []string {
		t.Helper()
		if pending, ok := n.trackedAs(changed); ok {
			return pending
		}
		pending, err := n.track(watched, []string{a, b}, changed)
		if err != nil {
			t.Fatal(err)
		}
		return pending
	}

	frontier := make(chan struct{})
	if got := track(frontier); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("pending %v, want both", got)
	}
	if err := watched.SaveCursors(done(b)); err != nil { // a fetch of b, seen by the watcher
		t.Fatal(err)
	}
	if err := st.SaveCursors(done(a)); err != nil { // written past the watcher: unseen
		t.Fatal(err)
	}
	if got, ok := n.trackedAs(frontier); !ok || !slices.Equal(got, []string{a}) {
		t.Fatalf("the frontier unchanged: pending %v (%v), want a alone, from memory", got, ok)
	}
	n.forget([]string{a})
	if _, ok := n.trackedAs(frontier); ok {
		t.Fatal("a member forgotten: the members were taken as tracked")
	}
	if got := track(frontier); len(got) != 0 {
		t.Fatalf("pending %v after a was read again, want none", got)
	}
	if _, ok := n.trackedAs(make(chan struct{})); ok {
		t.Fatal("a changed frontier was taken as tracked")
	}
}

// A track takes, for members it never looked at, what a pass read of their
// cursors (sync --once tracks only after its pass): a member both of whose
// families the pass saw completed is not read again, the others are. Here
// a's cursors are deleted past the watcher after the pass read them: a
// track reading the store would call a unfetched.
func TestTrackTakesWhatAPassRead(t *testing.T) {
	const relay = "ws://127.0.0.1:1"
	st := openStore(t, relay)
	n := newNewcomers()
	a, b, c := fmt.Sprintf("%064x", 1), fmt.Sprintf("%064x", 2), fmt.Sprintf("%064x", 3)
	var cs []store.Cursor
	for _, done := range [][2]string{{trustFamily.scope, a}, {ratingsFamily.scope, a}, {trustFamily.scope, b}} {
		cs = append(cs, store.Cursor{CursorKey: store.CursorKey{Relay: relay, Scope: done[0], Author: done[1]}, LastEoseAt: 100})
	}
	if err := st.SaveCursors(cs); err != nil {
		t.Fatal(err)
	}
	members := []string{a, b, c}
	for _, scope := range []string{trustFamily.scope, ratingsFamily.scope} {
		read, err := st.Cursors(relay, scope, members)
		if err != nil {
			t.Fatal(err)
		}
		n.read(scope, completedKeys(read))
	}
	if err := st.DeleteCursorsForAuthors([]string{a}); err != nil {
		t.Fatal(err)
	}
	pending, err := n.track(watchedStore{Store: st, n: n}, members, make(chan struct{}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pending, []string{b, c}) {
		t.Fatalf("pending %v, want b (ratings never fetched) and c", pending)
	}
	if len(n.seen) != 0 {
		t.Fatalf("the track left %d keys seen", len(n.seen))
	}
}
