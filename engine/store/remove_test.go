package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// Removing an event takes its row, its tag index rows and its slot: an older
// event of the slot may then be stored again, and a tag filter no longer
// finds it. A new file is in incremental mode, and the pages a large removal
// frees go back to the disk.
func TestDeleteEventsAndReleasePages(t *testing.T) {
	s, _ := openTemp(t)
	if mode, err := s.VacuumMode(); err != nil || mode != "incremental" {
		t.Fatalf("a new file's auto_vacuum: %q %v", mode, err)
	}
	alice, bob := hex64("alice"), hex64("bob")
	older := trustEvent(alice, bob, "1", 100)
	newer := trustEvent(alice, bob, "-1", 200)
	if _, err := s.SaveBatch([]*nostr.Event{older, newer}); err != nil {
		t.Fatal(err)
	}
	// bulk: many events of one author, so whole pages come free
	var bulk []*nostr.Event
	for i := range 3000 {
		bulk = append(bulk, mkEventContent(strings.Repeat("x", 500), 1621, hex64("carol"), int64(1000+i), nostr.Tag{"a", "30617:" + bob + ":repo"}))
	}
	if _, err := s.SaveBatch(bulk); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckpointNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := s.FileSize()

	removed, err := s.DeleteEvents([]string{newer.ID, strings.Repeat("0", 64)})
	if err != nil || len(removed) != 1 || removed[0].ID != newer.ID || removed[0].Content != newer.Content {
		t.Fatalf("DeleteEvents: %v %v", removed, err)
	}
	if has, _ := s.Has(newer.ID); has {
		t.Fatal("the removed event is still held")
	}
	if got, _ := s.Query(context.Background(), nostr.Filter{Tags: nostr.TagMap{"p": {bob}}}, 10); len(got) != 0 {
		t.Fatalf("a tag filter still finds %d events", len(got))
	}
	if res, err := s.SaveBatch([]*nostr.Event{older}); err != nil || res[0].Outcome != Stored {
		t.Fatalf("the slot's older event after its winner was removed: %+v %v", res, err)
	}

	var ids []string
	var size int64
	err = s.EachMatching(context.Background(), nostr.Filter{Authors: []string{hex64("carol")}, Kinds: []int{1621}}, func(ev *nostr.Event, n int64) error {
		ids = append(ids, ev.ID)
		size += n
		return nil
	})
	if err != nil || len(ids) != len(bulk) || size < int64(len(bulk)*500) {
		t.Fatalf("EachMatching: %d events, %d bytes, %v", len(ids), size, err)
	}
	for chunk := range slices.Chunk(ids, 500) {
		if _, err := s.DeleteEvents(chunk); err != nil {
			t.Fatal(err)
		}
	}
	released, err := s.ReleaseFreePages(context.Background())
	if err != nil || released == 0 {
		t.Fatalf("ReleaseFreePages: %d %v", released, err)
	}
	if after := s.FileSize(); after >= before {
		t.Fatalf("file %d bytes before, %d after releasing %d pages", before, after, released)
	}
}

// An author first seen outside keeps that time; one back inside is
// forgotten, so leaving again starts the clock again.
func TestSetOutsiders(t *testing.T) {
	s, _ := openTemp(t)
	a, b, c := hex64("a"), hex64("b"), hex64("c")
	if since, err := s.SetOutsiders([]string{a, b}, 100); err != nil || since[a] != 100 || since[b] != 100 {
		t.Fatalf("first: %v %v", since, err)
	}
	if since, err := s.SetOutsiders([]string{a, c}, 200); err != nil || since[a] != 100 || since[c] != 200 || len(since) != 2 {
		t.Fatalf("second: %v %v", since, err)
	}
	if since, err := s.SetOutsiders([]string{a, b}, 300); err != nil || since[a] != 100 || since[b] != 300 {
		t.Fatalf("b left again: %v %v", since, err)
	}
	if since, err := s.SetOutsiders(nil, 400); err != nil || len(since) != 0 {
		t.Fatalf("nobody outside: %v %v", since, err)
	}
}
