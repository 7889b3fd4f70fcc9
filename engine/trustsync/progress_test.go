package trustsync

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// A running pass says how many events it received, at what rate, and the
// time left at its pace over the keys it knows it will still ask for (here:
// the ratings of the trusted authors, once trust is done); after the pass
// the progress is gone.
func TestPassProgressSaysEventsRateAndTimeLeft(t *testing.T) {
	now := time.Now().Unix()
	root := newPerson("root")
	var evs []*nostr.Event
	for i := range 15 { // within the per-author cap of 20
		p := newPerson(fmt.Sprint("p", i))
		evs = append(evs, root.trust(p, "1", now-int64(i)), p.trust(root, "1", now-int64(i)))
	}
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, evs...)
	rg := newRig(t, settings.FrontierInterval, root, relay.URL)
	rg.sink.delay.Store(int64(100 * time.Millisecond)) // a slow pipeline: the pass takes a while
	done := make(chan status.Coverage, 1)
	go func() {
		cov, _ := rg.runner.RunOnce(context.Background())
		done <- cov
	}()
	var seen status.Progress
	for waiting := true; waiting; {
		select {
		case cov := <-done:
			if cov.State != status.StateComplete {
				t.Fatalf("coverage %+v", cov)
			}
			waiting = false
		case <-time.After(5 * time.Millisecond):
			if p := rg.runner.Status().Progress; p.Pass == "trust" && p.Events > 0 && p.SecondsLeft > 0 {
				seen = p
			}
		}
	}
	if seen.Events == 0 || seen.EventsPerSecond <= 0 || seen.SecondsLeft <= 0 {
		t.Fatalf("progress during the trust walk %+v: want events, a rate and the time left", seen)
	}
	if p := rg.runner.Status().Progress; p != (status.Progress{}) {
		t.Fatalf("progress after the pass %+v, want none", p)
	}
}

// A running pass's stored figure is what its relays stored in this pass
// (each relay's count of events new to us), not what they sent: events
// already held count as received, not stored (issue 28 §3: the window's
// "events stored this pass" is this figure).
func TestPassProgressStoredIsWhatItsRelaysStored(t *testing.T) {
	w := buildWoT(time.Now().Unix())
	good := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	stalled := faultrelay.StartForTest(t, faultrelay.Mode{Stall: true}) // keeps the pass running
	rg := newRig(t, settings.FrontierInterval, w.root, good.URL, stalled.URL)
	held := rg.sink.keep(w.all[:3]) // already held: received again, not stored
	rg.frontier.recompute()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		rg.runner.RunOnce(ctx)
	}()
	defer func() { cancel(); <-done }() // the stalled relay's page timeouts are not waited out
	var seen Status
	testutil.EventuallyWithin(t, 10*time.Second, "the good relay's share stored while the pass waits for the other", func() bool {
		seen = rg.runner.Status()
		stored := int64(len(rg.sink.ids()) - held)
		return seen.State == status.StateRunning && stored > 0 && seen.Progress.Stored == stored
	})
	var byRelay int64
	for _, r := range seen.Relays {
		byRelay += r.EventsStored
	}
	if seen.Progress.Events <= seen.Progress.Stored || byRelay != seen.Progress.Stored {
		t.Errorf("progress %+v, relays stored %d: want stored below received, and the relays' stored counts", seen.Progress, byRelay)
	}
}
