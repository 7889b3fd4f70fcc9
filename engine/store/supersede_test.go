package store

import (
	"context"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
)

func TestSupersedeEndsTheSlotWithoutStoringTheNewerEvent(t *testing.T) {
	s, _ := openTemp(t)
	owner := fixture.NewAuthor(1)
	held := owner.Announce("tool", []string{"wss://our.example"}, nil, 100)
	if _, err := s.SaveBatch([]*nostr.Event{held}); err != nil {
		t.Fatal(err)
	}
	newer := owner.Announce("tool", []string{"wss://elsewhere.example"}, nil, 200)
	ended, err := s.Supersede(newer)
	if err != nil || ended != held.ID {
		t.Fatalf("Supersede = %q, %v; want the held announcement ended", ended, err)
	}
	for _, id := range []string{held.ID, newer.ID} {
		if has, _ := s.Has(id); has {
			t.Fatalf("%s still stored", id)
		}
	}
	if n, _ := s.Count(context.Background(), nostr.Filter{Tags: nostr.TagMap{"d": {"tool"}}}); n != 0 {
		t.Fatalf("tag index still finds %d events", n)
	}
	// an older announcement (a relay replaying it) does not come back
	res, err := s.SaveBatch([]*nostr.Event{owner.Announce("tool", []string{"wss://our.example"}, nil, 150)})
	if err != nil || res[0].Outcome != Superseded {
		t.Fatalf("older announcement after the end: %v, %v", res, err)
	}
}
