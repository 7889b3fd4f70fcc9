package relay

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// healthStore is an in-memory HealthStore that counts saves.
type healthStore struct {
	mu    sync.Mutex
	saved map[profileURL]health.Health
	saves int
}

type profileURL struct {
	p   health.Profile
	url string
}

func (s *healthStore) RelayHealth(p health.Profile, url string) (health.Health, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.saved[profileURL{p, url}]
	return h, ok, nil
}

func (s *healthStore) SaveRelayHealth(p health.Profile, h health.Health) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved[profileURL{p, h.URL}] = h
	s.saves++
	return nil
}

func (s *healthStore) get(p health.Profile, url string) (health.Health, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saved[profileURL{p, url}], s.saves
}

// Links start from their profile's stored health, follow the tracked set, and
// save progress figures, as their profile's, only when asked (or every 10 s),
// not at every REQ. Their connection options are read when they connect.
func TestLinksSeedTrackAndSave(t *testing.T) {
	const a, b = "wss://a.example", "wss://b.example"
	st := &healthStore{saved: map[profileURL]health.Health{
		{health.ProfileRepository, a}: {URL: a, State: status.HealthBackoff, ConsecutiveFailures: 2, LastError: "refused"},
		{health.ProfileTrust, a}:      {URL: a, State: status.HealthDead, ConsecutiveFailures: 9, LastError: "other profile"},
		{health.ProfileTrust, b}:      {URL: b, State: status.HealthDead, ConsecutiveFailures: 9, LastError: "other profile"},
	}}
	var optsFor []string
	links := NewLinks(st, health.ProfileRepository, func(url string) Options {
		optsFor = append(optsFor, url)
		return Options{}
	}, faultrelay.NewClock(time.Unix(1_700_000_000, 0)), slog.Default())

	links.Track([]string{a, b})
	if h := links.Get(a).Health(); h.State != status.HealthBackoff || h.ConsecutiveFailures != 2 || h.LastError != "refused" {
		t.Fatalf("link of a stored relay starts at %+v, want its stored health", h)
	}
	if h := links.Get(b).Health(); h.State != status.HealthHealthy || h.URL != b {
		t.Fatalf("link of a new relay starts at %+v, want healthy", h)
	}
	if links.Get(a) != links.Get(a) || len(links.All()) != 2 || len(optsFor) != 0 {
		t.Fatalf("%d links, options read for %v: want one link per relay, options read only to connect", len(links.All()), optsFor)
	}

	l := links.Get(b)
	l.Fetched(FetchStats{Events: 5, oldest: 10, newest: 20})
	if _, saves := st.get(health.ProfileRepository, b); saves != 0 {
		t.Fatalf("%d saves after a progress change, want none yet", saves)
	}
	links.Save(l)
	if h, saves := st.get(health.ProfileRepository, b); saves != 1 || h.EventsFetched != 5 {
		t.Fatalf("after Save: %d saves, stored %+v, want the progress figures", saves, h)
	}
	if h, _ := st.get(health.ProfileTrust, b); h.State != status.HealthDead || h.EventsFetched != 0 {
		t.Fatalf("the other profile's health of %s became %+v", b, h)
	}

	links.Track([]string{b})
	if all := links.All(); len(all) != 1 || all[0].URL() != b {
		t.Fatalf("links after tracking only %s: %d", b, len(all))
	}
}

// The two sync profiles' links to one relay, on one database, keep their own
// health: the trust profile's failure and the repository profile's progress
// are both there after a restart, neither overwriting the other.
func TestLinksOfTwoProfilesKeepTheirOwnHealth(t *testing.T) {
	const url = "ws://127.0.0.1:1" // refuses connections
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	noOpts := func(string) Options { return Options{} }
	trust := NewLinks(st, health.ProfileTrust, noOpts, clock, slog.Default())
	repo := NewLinks(st, health.ProfileRepository, noOpts, clock, slog.Default())

	if _, err := trust.Get(url).connect(context.Background()); err == nil {
		t.Fatal("connected to a closed port")
	}
	l := repo.Get(url)
	l.Fetched(FetchStats{Events: 5, oldest: 10, newest: 20})
	repo.Save(l)
	st.Close()

	st, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trust = NewLinks(st, health.ProfileTrust, noOpts, clock, slog.Default())
	repo = NewLinks(st, health.ProfileRepository, noOpts, clock, slog.Default())
	if h := trust.Get(url).Health(); h.State != status.HealthBackoff || h.ConsecutiveFailures != 1 || h.EventsFetched != 0 {
		t.Errorf("trust link after a restart %+v, want its failure and none of the other profile's progress", h)
	}
	if h := repo.Get(url).Health(); h.State != status.HealthHealthy || h.ConsecutiveFailures != 0 || h.EventsFetched != 5 {
		t.Errorf("repository link after a restart %+v, want healthy with its progress", h)
	}
}
