package trustsync

import (
	"context"
	"testing"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// A pass completes against a relay that allows 1 or 2 subscriptions per
// connection, whether it publishes that (NIP-11 max_subscriptions: never
// refused) or only refuses the excess with strfry's NOTICE (the refused
// pages are asked again within what it accepted).
func TestPassWithinTheRelaysSubscriptionLimit(t *testing.T) {
	evs, keys := frontierEvents(200, 2) // 10 batches of 20 authors
	for name, mode := range map[string]faultrelay.Mode{
		"1 allowed, refused by NOTICE": {MaxSubscriptions: 1},
		"2 allowed, refused by NOTICE": {MaxSubscriptions: 2},
		"2 allowed, published":         {MaxSubscriptions: 2, AdvertiseSubscriptions: true},
	} {
		t.Run(name, func(t *testing.T) {
			relay := faultrelay.StartForTest(t, mode, evs...)
			sink := &countingSink{}
			r := New(Config{Store: openStore(t, relay.URL), Sink: sink, Frontier: staticFrontier{authors: keys},
				Settings: newSettings(settings.FrontierInterval)})
			cov, err := r.RunOnce(context.Background())
			if err != nil || cov.State != status.StateComplete || sink.n.Load() != int64(len(evs)) {
				t.Fatalf("coverage %+v err %v, %d of %d events", cov, err, sink.n.Load(), len(evs))
			}
			if mode.AdvertiseSubscriptions && relay.RefusedReqs() != 0 {
				t.Fatalf("%d REQs refused by a relay that published its limit", relay.RefusedReqs())
			}
		})
	}
}
