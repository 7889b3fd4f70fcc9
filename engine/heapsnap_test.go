package engine

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// A restart loads the heap's snapshot when the database is as the snapshot
// left it, and builds the heap from the database when it is not: changed by
// another program, damaged, or left open by a run that did not close. Every
// way, the heap and the answers are the database's.
func TestHeapSnapshotIsTheDatabases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	eng := openQuiet(t, dir)
	if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Trust(fixture.P(bob.Pubkey), "1", t0),
		alice.Claims("alice", "42", t0),
	} {
		if r, err := eng.Submit(context.Background(), ev, "test"); err != nil || !r.OK() {
			t.Fatalf("submit: %+v %v", r, err)
		}
	}
	ask := func(eng *Engine) string {
		t.Helper()
		a, err := eng.Resolve(context.Background(), Query{Subject: bob.Pubkey})
		if err != nil {
			t.Fatal(err)
		}
		return a.Verdict
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	snapshot := heapSnapshotPath(dir)
	reopen := func(what string, fromSnapshot bool) *Engine {
		t.Helper()
		eng := openQuiet(t, dir)
		if loaded := eng.heapLoaded != ""; loaded != fromSnapshot {
			t.Fatalf("%s: heap loaded from its snapshot %v, want %v", what, loaded, fromSnapshot)
		}
		return eng
	}

	eng = reopen("after a clean close", true)
	if eng.walkLoaded == nil || eng.trust.frontier.Current().Size() != 3 {
		t.Fatalf("the frontier's walk was not kept with the heap (%d bytes) or not taken (%v)",
			len(eng.walkLoaded), eng.trust.frontier.Current().Pubkeys())
	}
	got, stats := ask(eng), eng.Status().Heap
	if _, err := os.Stat(snapshot + ".open"); err != nil {
		t.Fatalf("the loaded snapshot is not set aside while the engine runs: %v", err)
	}
	eng.Close()
	if err := os.Remove(snapshot); err != nil {
		t.Fatal(err)
	}
	eng = reopen("without a snapshot", false)
	if want := ask(eng); got != want || got != "trusted" || eng.Status().Heap != stats {
		t.Fatalf("from the snapshot: %s %+v; built from the database: %s %+v", got, stats, want, eng.Status().Heap)
	}
	eng.Close()

	// another program (no engine) stores an event: alice distrusts bob now
	st, err := store.Open(DatabasePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveBatch([]*nostr.Event{alice.Trust(fixture.P(bob.Pubkey), "-1", t0+1)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	eng = reopen("after another program's write", false)
	if got := ask(eng); got != "distrusted" {
		t.Fatalf("rebuilt heap answers %s, want distrusted", got)
	}
	eng.Close()

	data, err := os.ReadFile(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(snapshot, data, 0o600); err != nil {
		t.Fatal(err)
	}
	eng = reopen("with a damaged snapshot", false)
	if got := ask(eng); got != "distrusted" {
		t.Fatalf("rebuilt heap answers %s, want distrusted", got)
	}
	eng.Close()
	// a run that does not close leaves its snapshot set aside: the next
	// start does not trust it, whatever happened meanwhile
	if err := os.Rename(snapshot, snapshot+".open"); err != nil {
		t.Fatal(err)
	}
	reopen("after a run that did not close", false).Close()
}

// A read-only engine (status, resolve with no server) loads the snapshot
// where it lies and leaves it there: beside a running server it moves
// nothing, and after it the next start still loads the snapshot.
func TestReadOnlyEngineLeavesTheSnapshot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	eng := openQuiet(t, dir)
	if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	if r, err := eng.Submit(context.Background(), root.Trust(fixture.P(alice.Pubkey), "1", t0), "test"); err != nil || !r.OK() {
		t.Fatalf("submit: %+v %v", r, err)
	}
	eng.Close()
	snapshot := heapSnapshotPath(dir)
	before, err := os.Stat(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ro, err := Open(Options{DataDir: dir, ReadOnly: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		if ro.heapLoaded == "" {
			t.Fatal("the read-only engine built the heap beside a snapshot of its database")
		}
		if _, err := os.Stat(snapshot + ".open"); err == nil {
			t.Fatal("the read-only engine set the snapshot aside")
		}
		ro.Close()
	}
	after, err := os.Stat(snapshot)
	if err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the snapshot after read-only engines: %v, %v (was %v)", after, err, before.ModTime())
	}
	eng = openQuiet(t, dir)
	defer eng.Close()
	if eng.heapLoaded == "" {
		t.Fatal("the start after read-only engines built the heap")
	}
}
