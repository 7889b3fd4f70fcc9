package trustsync

import (
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// TestLiveReopensSubscriptionsTheRelayClosed (issue 9 item 18): a relay that
// CLOSEs every live subscription (a restart, not a refusal) is asked again
// after the backoff, on the same connection, and new events keep arriving.
func TestLiveReopensSubscriptionsTheRelayClosed(t *testing.T) {
	w, relay, rg := newWoTRig(t, settings.FrontierContinuous)
	rg.runLive(t)
	reqs := relay.Reqs()
	relay.CloseSubscriptions("error: relay restarting")
	testutil.EventuallyWithin(t, 5*time.Second, "the closed subscriptions asked again", func() bool { return relay.Reqs() > reqs && rg.live() })
	ev := w.g.sign(32009, time.Now().Unix(), nostr.Tags{{"d", "after-close"}, {"p", w.b.pk}, {"v", "1"}})
	relay.Publish(ev)
	testutil.EventuallyWithin(t, 3*time.Second, "live delivery after the reopen", func() bool { return rg.sink.has(ev.ID) })
	if m := rg.runner.Metrics().Relays[0]; m.AttemptsFailed != 0 {
		t.Fatalf("metrics %+v: a closed subscription is not a failed connection", m)
	}
}

// A live connection whose events cannot be stored (a broken database) is
// not the relay's failure: its health is not blamed (no backoff, no failure
// counted), and the session rests before it connects again, as repository
// sync's failed batches do (5 s, then 10 s …), its row saying until when and
// why, instead of redialling at once for as long as the error lasts.
// Before, the store's error was counted as the relay's.
func TestLiveStoreErrorRestsBeforeRedial(t *testing.T) {
	_, _, rg := newWoTRig(t, settings.FrontierContinuous)
	rg.sink.failing.Store(true)
	rg.run(t)
	time.Sleep(2 * time.Second)
	// the pass's connection, then the live one that failed and rests
	if m := rg.runner.Metrics().Relays[0]; m.AttemptsOK > 2 {
		t.Fatalf("%d connections in 2 s while every batch failed to store, want 2 (the pass's, then one live)", m.AttemptsOK)
	}
	row := rg.runner.Status().Relays[0]
	if row.Health != status.HealthHealthy || row.Failures != 0 || row.CoolingUntil <= time.Now().Unix() {
		t.Fatalf("relay row %+v: want a healthy relay, no failure counted, resting after the store's error", row)
	}
}
