package trustsync

import (
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// TestLiveReopensSubscriptionsTheRelayClosed (issue 9 item 18): a relay that
// CLOSEs every live subscription (a restart, not a refusal) is asked again
// after the backoff, on the same connection, and new events keep arriving.
func TestLiveReopensSubscriptionsTheRelayClosed(t *testing.T) {
	now := time.Now().Unix()
	w := buildWoT(now)
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	rg := newRig(t, settings.FrontierContinuous, w.root, relay.URL)
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
