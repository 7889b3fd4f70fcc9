package trustsync

import (
	"context"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// heldClaims asks, as the engine's heap does, only for claims not yet held;
// the hinted pubkeys come from the daily refresh.
type heldClaims struct{ *bfsFrontier }

func (f heldClaims) ClaimCandidates() []string {
	var out []string
	for _, p := range f.HintedPubkeys() {
		if !f.holdsClaim(p) {
			out = append(out, p)
		}
	}
	return out
}

func (f heldClaims) holdsClaim(pubkey string) bool {
	f.sink.mu.Lock()
	defer f.sink.mu.Unlock()
	_, ok := f.sink.slots[pubkey+":"+string(rune(10011))]
	return ok
}

// TestHintedClaimsRefreshedDaily (issue 9 item 14): a hinted pubkey's 10011
// is fetched again on the next UTC day's full refresh, so a revocation
// published after its claim was held is seen; within the day it is not asked
// again.
func TestHintedClaimsRefreshedDaily(t *testing.T) {
	clock := faultrelay.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	now := clock.Now().Unix()
	root, friend, owner := newPerson("root"), newPerson("friend"), newPerson("owner")
	claim := owner.sign(10011, now-3600, nostr.Tags{{"i", "twitter:owner", "p1", "post:id:1"}, {"i", "twitter_id:555", "p1", "post:id:1"}})
	relay := faultrelay.StartForTest(t, faultrelay.Mode{},
		root.trust(friend, "1", now-7200),
		friend.sign(32009, now-7200, nostr.Tags{{"d", "x"}, {"i", "user:id:555", "", owner.pk}, {"k", "user:id"}, {"v", "1"}, {"s", "x.com"}}),
		claim)
	st := openStore(t, relay.URL)
	sink := newMemSink()
	fr := heldClaims{newFrontier(sink, root.pk)}
	r := New(Config{Store: st, Sink: sink, Frontier: fr, Settings: newSettings(settings.FrontierInterval), Clock: clock})
	pass := func() {
		t.Helper()
		if cov, err := r.RunOnce(context.Background()); err != nil || cov.State != status.StateComplete {
			t.Fatalf("pass %+v %v", cov, err)
		}
	}
	pass()
	if !sink.has(claim.ID) {
		t.Fatal("the hinted pubkey's claim was not fetched")
	}
	revoke := owner.sign(10011, now-60, nostr.Tags{})
	relay.Publish(revoke)

	clock.Advance(time.Hour) // same UTC day: the held claim is not asked again
	relay.ResetCounters()
	pass()
	if sink.has(revoke.ID) {
		t.Fatal("the claim was fetched again within the same day")
	}
	clock.Advance(24 * time.Hour) // the next day's full refresh asks for it
	pass()
	if !sink.has(revoke.ID) {
		t.Fatal("the daily refresh did not fetch the hinted pubkey's newer 10011")
	}
}
