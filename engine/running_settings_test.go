package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/relay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// relayState is the state of url's row in the trust profile's status, "" when
// it has none.
func relayState(eng *Engine, url string) string {
	for _, r := range eng.Status().Relays {
		if r.URL == url {
			return r.State
		}
	}
	return ""
}

// A relay added while live subscriptions run gets its own: the others keep
// theirs, open, and no pass runs for all. Before, every relay's
// subscriptions were torn down and a full pass ran first.
func TestAddingARelayLeavesTheOthersLive(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	w := buildWoT(now)
	a := faultrelay.StartForTest(t, faultrelay.Mode{}, w.events...)
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(func(s *settings.Settings) error {
		return errors.Join(settings.AddRoot(w.root.Pubkey)(s), settings.AddRelay(a.URL)(s), settings.SetStrategy(settings.FrontierContinuous)(s))
	}); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "live on A", func() bool { return relayState(eng, a.URL) == status.StateLive })
	// A's live REQs go out one after another, the last ones after its row
	// says live: count them once no more come
	var reqs int64
	testutil.EventuallyWithin(t, 10*time.Second, "A's live REQs all sent", func() bool {
		before := a.Reqs()
		time.Sleep(300 * time.Millisecond)
		reqs = a.Reqs()
		return reqs == before
	})
	lastPass := eng.Status().LastSync

	// adds no one to the frontier and names no X account (a statement about
	// one may rightly start its discovery on every relay, A's too)
	statement := w.a.Trust(fixture.P(w.outsider.Pubkey), "0", now)
	b := faultrelay.StartForTest(t, faultrelay.Mode{}, statement)
	if err := eng.Modify(settings.AddRelay(b.URL)); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "B caught up and live", func() bool {
		held, _ := eng.store.Has(statement.ID)
		return held && relayState(eng, b.URL) == status.StateLive
	})
	if got := a.Reqs(); got != reqs || relayState(eng, a.URL) != status.StateLive || eng.Status().LastSync != lastPass {
		t.Fatalf("after adding B: A got %d REQs more, A %s, last pass %d (was %d); want A's subscriptions left alone and no pass",
			got-reqs, relayState(eng, a.URL), eng.Status().LastSync, lastPass)
	}
}

// pageTimeout sets the page timeout on a running engine.
func pageTimeout(t *testing.T, eng *Engine, seconds int) {
	t.Helper()
	if err := eng.Modify(func(s *settings.Settings) error {
		s.Limits.PageTimeoutSeconds = seconds
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A page timeout set on a running engine applies to the next connection of
// a trust relay it already knows. Before, each relay kept the timeout of
// when the engine first met it (30 s here).
func TestPageTimeoutReachesAKnownTrustRelay(t *testing.T) {
	t.Parallel()
	w := buildWoT(time.Now().Unix())
	r := faultrelay.StartForTest(t, faultrelay.Mode{}, w.events...)
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(func(s *settings.Settings) error {
		return errors.Join(settings.AddRoot(w.root.Pubkey)(s), settings.AddRelay(r.URL)(s), settings.SetInterval(0)(s))
	}); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "the first pass over the relay", func() bool {
		st := eng.Status()
		return st.State == status.StateComplete && len(st.Relays) == 1 && st.Relays[0].LastSuccess != 0
	})
	lastPass := eng.Status().LastSync

	pageTimeout(t, eng, 1)
	r.ResetCounters()
	r.SetMode(faultrelay.Mode{StallFirst: 1}) // the next pass's first page never comes
	time.Sleep(time.Second)                   // LastSync is in seconds
	if err := eng.SyncNow(); err != nil {
		t.Fatal(err)
	}
	// 1 s, then the page asked again: about 2 s; with 30 s, more than 30
	testutil.EventuallyWithin(t, 10*time.Second, "a pass past the stalled page", func() bool {
		st := eng.Status()
		return st.LastSync > lastPass && st.State == status.StateComplete
	})
}

// A page timeout set on a running engine applies to the next connection of
// a repository relay it already knows; repository sync reads the setting.
// Before, it always waited 30 s.
func TestPageTimeoutReachesAKnownRepositoryRelay(t *testing.T) {
	t.Parallel()
	owner := fixture.NewAuthor(74)
	// without NIP-77, so the reconnection's catch-up is paged (reconciled,
	// it asked for no page to stall)
	noNIP77 := faultrelay.Mode{NegRefusal: "NOTICE"}
	b := faultrelay.StartForTest(t, noNIP77)
	b.Publish(owner.Announce("tool", []string{"wss://our.example", b.URL}, nil, time.Now().Unix()-100))
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(func(s *settings.Settings) error {
		return errors.Join(settings.AddRepoService("wss://our.example")(s), settings.SetRepoBootstrap(b.URL)(s))
	}); err != nil {
		t.Fatal(err)
	}
	row := func() status.RepoRelay {
		for _, r := range eng.RepoSyncStatus().Relays {
			if r.URL == b.URL {
				return r
			}
		}
		return status.RepoRelay{}
	}
	testutil.EventuallyWithin(t, 10*time.Second, "live on the repository relay", func() bool { return row().State == status.StateLive })

	pageTimeout(t, eng, 1)
	b.ResetCounters()
	// the next connection's first page never comes: the first REQs from now
	// on are stalled, a few, since the old connection may still send one
	// before it is replaced (seen under -race)
	noNIP77.StallFirst = 4
	b.SetMode(noNIP77)
	// a second service of ours: the profile reconnects every relay (a stop, not a failure)
	if err := eng.Modify(settings.AddRepoService("wss://second.example")); err != nil {
		t.Fatal(err)
	}
	// the stalled page fails the connection after 1 s; with 30 s, not before
	// 30 (15 s leaves a loaded machine room for the reconnection)
	testutil.EventuallyWithin(t, 15*time.Second, "the stalled page timed out", func() bool {
		return strings.Contains(row().LastError, relay.ErrTimeout.Error())
	})
}

// A change a running engine takes only at its next start is saved, and
// Modify says so instead of leaving the caller to wonder; status names it
// until the value is back to the one the engine runs with.
func TestListenAddressChangeSaysItNeedsARestart(t *testing.T) {
	t.Parallel()
	eng, _ := startEngine(t, Options{})
	was := eng.Settings().Listen
	err := eng.Modify(settings.SetListen("127.0.0.1:7999", true))
	var restart *RestartNeeded
	if !errors.As(err, &restart) || !slices.Equal(restart.Settings, []string{"listen address"}) {
		t.Fatalf("Modify(listen) = %v, want a RestartNeeded naming the listen address", err)
	}
	if s := eng.Settings(); s.Listen != "127.0.0.1:7999" || !s.AllowLAN {
		t.Fatalf("settings after the change %+v, want it saved (and the LAN allowed at once)", s)
	}
	if got := eng.Status().RestartNeeded; !slices.Equal(got, []string{"listen address"}) {
		t.Fatalf("status restartNeeded %v, want the listen address", got)
	}
	if err := eng.Modify(settings.AddRoot(fixture.NewAuthor(1).Pubkey)); err != nil {
		t.Fatalf("another change while a restart is pending: %v, want nil", err)
	}
	if err := eng.Modify(settings.SetListen(was, false)); err != nil {
		t.Fatalf("back to the address in use: %v, want nil", err)
	}
	if got := eng.Status().RestartNeeded; len(got) != 0 {
		t.Fatalf("status restartNeeded %v once back, want none", got)
	}
}

// A relay removed while live loses its session alone, and its health goes
// with it: the ending session does not write it back, so the relay starts
// afresh if it is added again.
func TestRemovedLiveRelayLeavesNoHealth(t *testing.T) {
	t.Parallel()
	w := buildWoT(time.Now().Unix())
	a := faultrelay.StartForTest(t, faultrelay.Mode{}, w.events...)
	b := faultrelay.StartForTest(t, faultrelay.Mode{}, w.events...)
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(func(s *settings.Settings) error {
		return errors.Join(settings.AddRoot(w.root.Pubkey)(s), settings.AddRelay(a.URL)(s), settings.AddRelay(b.URL)(s),
			settings.SetStrategy(settings.FrontierContinuous)(s))
	}); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "live on A and B", func() bool {
		return relayState(eng, a.URL) == status.StateLive && relayState(eng, b.URL) == status.StateLive
	})
	// a session is live once its REQs are written, maybe before B read them
	var reqs int64
	testutil.EventuallyWithin(t, 10*time.Second, "B's REQs all read", func() bool {
		reqs = b.Reqs()
		time.Sleep(100 * time.Millisecond)
		return b.Reqs() == reqs
	})
	if err := eng.Modify(settings.RemoveRelay(a.URL)); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "A's connection closed", func() bool { return a.Conns() == 0 })
	if _, held, err := eng.store.RelayHealth(health.ProfileTrust, a.URL); err != nil || held {
		t.Fatalf("A's health held after its removal (%v), want it gone", err)
	}
	if relayState(eng, b.URL) != status.StateLive || b.Reqs() != reqs {
		t.Fatalf("B %s with %d more REQs after A's removal, want its subscriptions left alone", relayState(eng, b.URL), b.Reqs()-reqs)
	}
}
