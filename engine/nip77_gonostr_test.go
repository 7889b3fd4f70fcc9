//go:build !race

// go-nostr v0.52.3's Relay races with itself when a connection closes (its
// write loop sets r.Connection = nil while close() reads it), so this test,
// which drives go-nostr's client, stays out of -race runs; test.sh runs it
// without the race detector.

package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
)

// memStore is the local side of go-nostr's NegentropySync: a plain list.
type memStore struct {
	mu        sync.Mutex
	evs       []*nostr.Event
	published int
}

func (m *memStore) Publish(_ context.Context, ev nostr.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.evs = append(m.evs, &ev)
	m.published++
	return nil
}

func (m *memStore) QuerySync(_ context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*nostr.Event
	for _, ev := range m.evs {
		if f.Matches(ev) {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (m *memStore) QueryEvents(ctx context.Context, f nostr.Filter) (chan *nostr.Event, error) {
	evs, _ := m.QuerySync(ctx, f)
	ch := make(chan *nostr.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	return ch, nil
}

// go-nostr's own NIP-77 client, written independently of our server, fetches
// exactly what it lacks, and nothing once in sync.
func TestNIP77ServerWithGoNostrClient(t *testing.T) {
	t.Parallel()
	url, evs := nip77Fixture(t, server.DefaultLimits(), 60)
	local := &memStore{evs: slices.Clone(evs[:50])}
	local.evs = append(local.evs, fixture.NewAuthor(4).Trust(fixture.P(evs[0].PubKey), "1", t0)) // only we hold it
	f := nostr.Filter{Kinds: []int{32009}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := nip77.NegentropySync(ctx, local, url, f, nip77.Down); err != nil {
		t.Fatal(err)
	}
	if local.published != 10 {
		t.Fatalf("fetched %d events, want the 10 missing", local.published)
	}
	if got, _ := local.QuerySync(ctx, nostr.Filter{IDs: []string{evs[59].ID}}); len(got) != 1 {
		t.Fatal("the newest missing event was not fetched")
	}
	local.published = 0
	if err := nip77.NegentropySync(ctx, local, url, f, nip77.Down); err != nil {
		t.Fatal(err)
	}
	if local.published != 0 {
		t.Fatalf("in sync, yet fetched %d events", local.published)
	}
}
