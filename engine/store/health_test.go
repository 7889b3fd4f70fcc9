package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"dtp-personal/engine/health"
	"dtp-personal/engine/status"
)

// A relay both sync profiles use has one health per profile: saving one
// profile's does not overwrite the other's, and both survive a reopen.
func TestRelayHealthPerProfileSurvivesReopen(t *testing.T) {
	s, path := openTemp(t)
	const url = "wss://shared.example"
	trust := health.Health{URL: url, State: status.HealthBackoff, ConsecutiveFailures: 3, FirstFailureAt: 10,
		LastAttemptAt: 11, NextRetryAt: 20, LastError: "dial: refused"}
	repo := health.Health{URL: url, State: status.HealthHealthy, LastAttemptAt: 12, LastSuccessAt: 13,
		LastConnectedAt: 12, EventsFetched: 77, OldestReached: 100, NewestReached: 200,
		RefreshNIP77: status.NIP77Used, RefreshIDs: 600, RefreshBytes: 4096,
		MaxSubscriptions: 200, MaxLimit: 500, MaxMessageLength: 131072, CaughtUpAt: 14, CaughtUpFor: "digest", CommittedAt: 15}
	if err := s.SaveRelayHealth(health.ProfileTrust, trust); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveRelayHealth(health.ProfileRepository, repo); err != nil {
		t.Fatal(err)
	}
	// an update of one profile's row leaves the other alone
	repo.EventsFetched = 78
	if err := s.SaveRelayHealth(health.ProfileRepository, repo); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for p, want := range map[health.Profile]health.Health{health.ProfileTrust: trust, health.ProfileRepository: repo} {
		if got, ok, err := s2.RelayHealth(p, url); err != nil || !ok || got != want {
			t.Errorf("%s health after reopen = %+v ok %v err %v, want %+v", p, got, ok, err, want)
		}
	}
}

// Removing a trust relay drops the trust profile's health of it only: the
// same URL may still be a repository's relay.
func TestRemoveRelayKeepsRepositoryHealth(t *testing.T) {
	s, _ := openTemp(t)
	const url = "wss://shared.example"
	if err := addRelay(s, url); err != nil {
		t.Fatal(err)
	}
	repo := health.Health{URL: url, State: status.HealthDead, ConsecutiveFailures: 40, LastError: "gone"}
	for p, h := range map[health.Profile]health.Health{
		health.ProfileTrust:      {URL: url, State: status.HealthHealthy, EventsFetched: 5},
		health.ProfileRepository: repo,
	} {
		if err := s.SaveRelayHealth(p, h); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeRelay(s, url); err != nil {
		t.Fatal(err)
	}
	if h, ok, err := s.RelayHealth(health.ProfileTrust, url); err != nil || ok {
		t.Errorf("trust health of the removed relay survived: %+v (err %v)", h, err)
	}
	if got, ok, err := s.RelayHealth(health.ProfileRepository, url); err != nil || !ok || got != repo {
		t.Errorf("repository health after removing the trust relay = %+v ok %v err %v, want %+v", got, ok, err, repo)
	}
}

// A database from before health per profile (schema version 3, relay_health
// keyed by url) opens, and its rows become the profiles' health: a row of one
// of the user's relays is the trust profile's (and the repository profile's,
// which read the same row until now); a row of any other relay, which only the
// repository profile could have written, is the repository profile's alone.
func TestRelayHealthMigrationKeepsOldRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	const configured, repoOnly = "wss://configured.example", "wss://repo-only.example"
	qs := append([]string{}, migrations[:3]...)
	qs = append(qs, "PRAGMA user_version = 3",
		fmt.Sprintf(`INSERT INTO relays (url, added_at) VALUES ('%s', 1)`, configured))
	for _, url := range []string{configured, repoOnly} {
		qs = append(qs, fmt.Sprintf(`INSERT INTO relay_health (url, state, consecutive_failures, first_failure_at,
				last_attempt_at, last_success_at, last_connected_at, next_retry_at, last_error,
				events_fetched, oldest_reached, newest_reached)
			VALUES ('%s', 'backoff', 2, 10, 11, 5, 4, 20, 'refused', 1234, 100, 200)`, url))
	}
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := func(url string) health.Health {
		return health.Health{URL: url, State: status.HealthBackoff, ConsecutiveFailures: 2, FirstFailureAt: 10,
			LastAttemptAt: 11, LastSuccessAt: 5, LastConnectedAt: 4, NextRetryAt: 20, LastError: "refused",
			EventsFetched: 1234, OldestReached: 100, NewestReached: 200}
	}
	for _, tc := range []struct {
		p    health.Profile
		url  string
		want bool
	}{
		{health.ProfileTrust, configured, true},
		{health.ProfileRepository, configured, true},
		{health.ProfileTrust, repoOnly, false},
		{health.ProfileRepository, repoOnly, true},
	} {
		got, ok, err := s.RelayHealth(tc.p, tc.url)
		switch {
		case err != nil:
			t.Errorf("%s health of %s: %v", tc.p, tc.url, err)
		case ok != tc.want:
			t.Errorf("%s health of %s present %v, want %v", tc.p, tc.url, ok, tc.want)
		case ok && got != old(tc.url):
			t.Errorf("%s health of %s = %+v, want the old row %+v", tc.p, tc.url, got, old(tc.url))
		}
	}
	// the new key is in force: both profiles' rows of one url can be written
	if err := s.SaveRelayHealth(health.ProfileTrust, health.New(configured)); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.RelayHealth(health.ProfileRepository, configured); got != old(configured) {
		t.Errorf("saving the trust profile's health changed the repository's to %+v", got)
	}
}

// Pruning one profile's health keeps the relays listed and every row of the
// other profile; an empty list forgets all of the profile's relays.
func TestPruneRelayHealthKeepsListedAndOtherProfile(t *testing.T) {
	s, _ := openTemp(t)
	const kept, gone, other = "wss://kept.example", "wss://gone.example", "wss://other.example"
	for _, p := range []health.Profile{health.ProfileTrust, health.ProfileRepository} {
		for _, url := range []string{kept, gone, other} {
			if err := s.SaveRelayHealth(p, health.Health{URL: url, State: status.HealthBackoff, ConsecutiveFailures: 2}); err != nil {
				t.Fatal(err)
			}
		}
	}
	has := func(p health.Profile, url string) bool {
		t.Helper()
		_, ok, err := s.RelayHealth(p, url)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	if err := s.PruneRelayHealth(health.ProfileRepository, []string{kept, other}); err != nil {
		t.Fatal(err)
	}
	if !has(health.ProfileRepository, kept) || !has(health.ProfileRepository, other) || has(health.ProfileRepository, gone) {
		t.Errorf("repository health after pruning to %s and %s: kept %v, other %v, gone %v",
			kept, other, has(health.ProfileRepository, kept), has(health.ProfileRepository, other), has(health.ProfileRepository, gone))
	}

	if err := s.PruneRelayHealth(health.ProfileRepository, nil); err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{kept, gone, other} {
		if has(health.ProfileRepository, url) {
			t.Errorf("repository health of %s survived pruning to no relay", url)
		}
		if !has(health.ProfileTrust, url) {
			t.Errorf("pruning the repository profile dropped the trust health of %s", url)
		}
	}
}

// Pruning that finds nothing to forget writes nothing: every start prunes,
// and a write waits for the start-up check (up to 2 s of a large database's
// start, issue 26). Here the check never ends, so a write would never return.
func TestPruningNothingDoesNotWaitForTheCheck(t *testing.T) {
	s, _ := openTemp(t)
	const kept = "wss://kept.example"
	if err := s.SaveRelayHealth(health.ProfileRepository, health.Health{URL: kept, State: status.HealthBackoff}); err != nil {
		t.Fatal(err)
	}
	s.checked = make(chan struct{}) // a start-up check that is still running
	defer close(s.checked)
	done := make(chan error, 1)
	go func() { done <- s.PruneRelayHealth(health.ProfileRepository, []string{kept}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pruning nothing waited for the start-up check")
	}
}
