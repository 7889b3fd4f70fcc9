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
