package relay_test

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
)

// healthStore is an in-memory relay.HealthStore that counts saves.
type healthStore struct {
	mu    sync.Mutex
	saved map[string]health.Health
	saves int
}

func (s *healthStore) RelayHealth(url string) (health.Health, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.saved[url]
	return h, ok, nil
}

func (s *healthStore) SaveRelayHealth(h health.Health) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved[h.URL] = h
	s.saves++
	return nil
}

func (s *healthStore) get(url string) (health.Health, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saved[url], s.saves
}

// Links start from stored health, follow the tracked set, and save progress
// figures only when asked (or every 10 s), not at every REQ.
func TestLinksSeedTrackAndSave(t *testing.T) {
	const a, b = "wss://a.example", "wss://b.example"
	st := &healthStore{saved: map[string]health.Health{
		a: {URL: a, State: status.HealthBackoff, ConsecutiveFailures: 2, LastError: "refused"},
	}}
	var optsFor []string
	links := relay.NewLinks(st, func(url string) relay.Options {
		optsFor = append(optsFor, url)
		return relay.Options{}
	}, faultrelay.NewClock(time.Unix(1_700_000_000, 0)), slog.Default())

	links.Track([]string{a, b})
	if h := links.Get(a).Health(); h.State != status.HealthBackoff || h.ConsecutiveFailures != 2 || h.LastError != "refused" {
		t.Fatalf("link of a stored relay starts at %+v, want its stored health", h)
	}
	if h := links.Get(b).Health(); h.State != status.HealthHealthy || h.URL != b {
		t.Fatalf("link of a new relay starts at %+v, want healthy", h)
	}
	if links.Get(a) != links.Get(a) || len(optsFor) != 2 {
		t.Fatalf("links made for %v, want one per relay", optsFor)
	}

	l := links.Get(b)
	l.Fetched(relay.FetchStats{Events: 5, Oldest: 10, Newest: 20})
	if _, saves := st.get(b); saves != 0 {
		t.Fatalf("%d saves after a progress change, want none yet", saves)
	}
	links.Save(l)
	if h, saves := st.get(b); saves != 1 || h.EventsFetched != 5 {
		t.Fatalf("after Save: %d saves, stored %+v, want the progress figures", saves, h)
	}

	links.Track([]string{b})
	if all := links.All(); len(all) != 1 || all[0].URL() != b {
		t.Fatalf("links after tracking only %s: %d", b, len(all))
	}
}
