package reposync

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"dtp-personal/engine/health"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// hasHealth reports whether st holds profile p's health of url.
func hasHealth(t *testing.T, st *store.Store, p health.Profile, url string) bool {
	t.Helper()
	_, ok, err := st.RelayHealth(p, url)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A relay the repository's newer announcement no longer lists loses its
// repository-profile health; the relay still listed keeps its own, and the
// trust profile's health of the same URL stays.
func TestRelayNoLongerListedForgetsItsHealth(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	r := faultrelay.StartForTest(t, faultrelay.Mode{})
	k := faultrelay.StartForTest(t, faultrelay.Mode{})
	n := startNode(t, []string{ourService}, "")
	trust := health.Health{URL: r.URL, State: status.HealthHealthy, EventsFetched: 5}
	if err := n.st.SaveRelayHealth(health.ProfileTrust, trust); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if res, _ := n.pipe.SubmitWait(ctx, owner.Announce("tool", []string{ourService, r.URL, k.URL}, nil, now-100), "push"); res.Outcome != ingest.Stored {
		t.Fatalf("announcement: %+v", res)
	}
	testutil.EventuallyWithin(t, patience, "both relays' health saved", func() bool {
		return hasHealth(t, n.st, health.ProfileRepository, r.URL) && hasHealth(t, n.st, health.ProfileRepository, k.URL)
	})

	if res, _ := n.pipe.SubmitWait(ctx, owner.Announce("tool", []string{ourService, k.URL}, nil, now-50), "push"); res.Outcome != ingest.Stored {
		t.Fatalf("newer announcement: %+v", res)
	}
	testutil.EventuallyWithin(t, patience, "the unlisted relay's connection over and its health forgotten", func() bool {
		return r.Conns() == 0 && !hasHealth(t, n.st, health.ProfileRepository, r.URL)
	})
	if rs := n.sync.Status().Relays; len(rs) != 1 || rs[0].URL != k.URL {
		t.Fatalf("status relays %+v: want only %s", rs, k.URL)
	}
	if !hasHealth(t, n.st, health.ProfileRepository, k.URL) {
		t.Error("the health of the relay still listed was forgotten")
	}
	if got, ok, err := n.st.RelayHealth(health.ProfileTrust, r.URL); err != nil || !ok || got != trust {
		t.Errorf("trust health of the unlisted relay = %+v ok %v err %v, want %+v", got, ok, err, trust)
	}
}

// At start the profile forgets the health of relays it no longer syncs
// with: here the former bootstrap relay and a relay from an older run that
// no repository lists; the listed relay's health and the trust profile's
// stay.
func TestStartForgetsHealthOfRelaysNoLongerSynced(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	k := faultrelay.StartForTest(t, faultrelay.Mode{})
	ann := owner.Announce("tool", []string{ourService, k.URL}, nil, now-100)
	boot := faultrelay.StartForTest(t, faultrelay.Mode{}, ann)
	path := filepath.Join(t.TempDir(), "dtp.db")
	n, stop := startNodeAt(t, path, []string{ourService}, boot.URL)
	t.Cleanup(stop)
	waitStored(t, n, ann)
	testutil.EventuallyWithin(t, patience, "both relays' health saved", func() bool {
		return hasHealth(t, n.st, health.ProfileRepository, boot.URL) && hasHealth(t, n.st, health.ProfileRepository, k.URL)
	})
	stop()

	const old = "wss://old.example"
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	trust := health.Health{URL: boot.URL, State: status.HealthHealthy, EventsFetched: 5}
	for _, save := range []struct {
		p health.Profile
		h health.Health
	}{
		{health.ProfileRepository, health.Health{URL: old, State: status.HealthDead, ConsecutiveFailures: 40}},
		{health.ProfileTrust, trust},
	} {
		if err := st.SaveRelayHealth(save.p, save.h); err != nil {
			t.Fatal(err)
		}
	}
	defer st.Close()

	// restarted without a bootstrap relay: only the repository's relay k is
	// synced. Not run, so no connection saves k's health again.
	if _, err := New(context.Background(), Config{Store: st, Normalize: settings.NormalizeRelayURL, Settings: settingsFor([]string{ourService}, "")}); err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{boot.URL, old} {
		if hasHealth(t, st, health.ProfileRepository, url) {
			t.Errorf("repository health of %s survived the restart", url)
		}
	}
	if !hasHealth(t, st, health.ProfileRepository, k.URL) {
		t.Error("the health of the relay still listed was forgotten")
	}
	if got, ok, err := st.RelayHealth(health.ProfileTrust, boot.URL); err != nil || !ok || got != trust {
		t.Errorf("trust health of the former bootstrap relay = %+v ok %v err %v, want %+v", got, ok, err, trust)
	}
}

// Dropping the bootstrap relay from the settings forgets its health once its
// connection is over (an ending connection saves its health).
func TestReconfigureForgetsFormerBootstrapHealth(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b := followToolOn(t, now)
	testutil.EventuallyWithin(t, patience, "the bootstrap relay's health saved", func() bool {
		return hasHealth(t, n.st, health.ProfileRepository, b.URL)
	})
	// the repository still lists b: it stays a sync relay, so its health stays
	n.sync.ApplySettings(settingsFor([]string{ourService}, b.URL), settingsFor([]string{ourService}, ""))
	if !hasHealth(t, n.st, health.ProfileRepository, b.URL) {
		t.Fatal("the health of a relay the repository still lists was forgotten")
	}
	// with another service URL the repository is no longer held: b is not synced
	n.sync.ApplySettings(settingsFor([]string{ourService}, ""), settingsFor([]string{"wss://elsewhere.example"}, ""))
	if hasHealth(t, n.st, health.ProfileRepository, b.URL) {
		t.Fatal("the health of a relay no longer synced survived the reconfiguration")
	}
}

// A connection stopped right after it started (a relay that joins and leaves
// the plan within one flush) has ended when its removal's wait returns:
// before, stop could run before the connection set its cancel, return at
// once and leave it running, saving health for a relay no longer synced.
func TestStopRightAfterStartEndsTheConnection(t *testing.T) {
	t.Parallel()
	n := startNode(t, nil, "")
	testutil.Eventually(t, "the syncer running", func() bool {
		n.sync.mu.Lock()
		defer n.sync.mu.Unlock()
		return n.sync.window != nil
	})
	for range 50 {
		n.sync.mu.Lock()
		n.sync.start("ws://127.0.0.1:1")
		c, _ := n.sync.relays.Get("ws://127.0.0.1:1")
		stopped := n.sync.relays.Remove("ws://127.0.0.1:1")
		n.sync.mu.Unlock()
		stopped()
		if state := c.session.Row().State; state != status.StateStopped {
			t.Fatalf("the connection is %s once stopped, want %s", state, status.StateStopped)
		}
	}
}
