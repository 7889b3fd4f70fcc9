package engine

import (
	"context"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
)

// Display names are display only (SPEC §10): the people's kind-0 profiles
// on the relay the engine syncs from are the window's to fetch (ui/names,
// its own file); the engine never stores a kind 0, never serves one over
// REQ, whatever profiles the relay holds.
func TestDisplayNamesStayOutOfTheTrustData(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	w := buildWoT(now)
	profiles := []*nostr.Event{
		w.root.Sign(&nostr.Event{Kind: 0, CreatedAt: nostr.Timestamp(now - 60), Tags: nostr.Tags{}, Content: `{"name":"Root"}`}),
		w.a.Sign(&nostr.Event{Kind: 0, CreatedAt: nostr.Timestamp(now - 60), Tags: nostr.Tags{}, Content: `{"display_name":"Alice"}`}),
		w.b.Sign(&nostr.Event{Kind: 0, CreatedAt: nostr.Timestamp(now - 60), Tags: nostr.Tags{}, Content: `{"name":"Bob"}`}),
	}
	remote := faultrelay.StartForTest(t, faultrelay.Mode{}, append(profiles, w.events...)...)

	eng, url := startEngine(t, Options{})
	for _, err := range []error{eng.Modify(settings.AddRoot(w.root.Pubkey)), eng.Modify(settings.AddRelay(remote.URL))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	syncPasses(t, eng, 2)
	stored, err := eng.store.Query(context.Background(), nostr.Filter{Kinds: []int{0}}, 0)
	if err != nil || len(stored) != 0 {
		t.Errorf("the store holds %d kind-0 events (%v), want none", len(stored), err)
	}
	if served := dialRaw(t, url).req(nostr.Filter{Kinds: []int{0}}); len(served) != 0 {
		t.Errorf("REQ for kind 0 served %d events, want none", len(served))
	}
}
