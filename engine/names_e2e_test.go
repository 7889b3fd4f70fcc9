package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/names"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Display names are display only (SPEC §10): the people's kind-0 profiles,
// fetched from the same relay the engine syncs from, land in names.db and
// nowhere else. The engine never stores a kind 0, never serves one over REQ,
// and answers exactly as before.
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

	dataDir := t.TempDir()
	eng, url := startEngine(t, Options{DataDir: dataDir})
	for _, err := range []error{eng.Modify(settings.AddRoot(w.root.Pubkey)), eng.Modify(settings.AddRelay(remote.URL))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	syncPasses(t, eng, 2)
	ask := func() string {
		a, err := eng.Resolve(context.Background(), Query{Subject: w.c.Pubkey})
		if err != nil {
			t.Fatal(err)
		}
		// the time it took, and whether a background pass was running, are not the answer
		a.ComputeMicros, a.Coverage = 0, status.Coverage{}
		b, _ := json.Marshal(a)
		return string(b)
	}
	before := ask()

	cache, err := names.Open(filepath.Join(dataDir, names.FileName), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	people := []string{w.root.Pubkey, w.a.Pubkey, w.b.Pubkey}
	if n, err := cache.Refresh(context.Background(), eng.Status().Settings.Relays, people, 5*time.Second); err != nil || n != 3 {
		t.Fatalf("names found %d, %v; want 3", n, err)
	}
	got, _ := cache.Names(people)
	if got[w.a.Pubkey] != "Alice" || got[w.b.Pubkey] != "Bob" || got[w.root.Pubkey] != "Root" {
		t.Errorf("names = %q", got)
	}

	syncPasses(t, eng, 1)
	if after := ask(); after != before {
		t.Errorf("the answer changed with names known:\nbefore %s\nafter  %s", before, after)
	}
	stored, err := eng.store.Query(context.Background(), nostr.Filter{Kinds: []int{0}}, 0)
	if err != nil || len(stored) != 0 {
		t.Errorf("the store holds %d kind-0 events (%v), want none", len(stored), err)
	}
	if served := dialRaw(t, url).req(nostr.Filter{Kinds: []int{0}}); len(served) != 0 {
		t.Errorf("REQ for kind 0 served %d events, want none", len(served))
	}
}
