package trustsync

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

func TestPerAuthorCap(t *testing.T) {
	for _, tc := range []struct{ maxEvents, maxTotalAuthors, want int }{
		{400000, 20000, 20}, // the defaults
		{1000, 100, 20},     // never below 20
		{100000, 1000, 100},
		{100001, 1000, 100}, // floor
	} {
		l := settings.Limits{MaxEvents: tc.maxEvents, MaxTotalAuthors: tc.maxTotalAuthors}
		if got := perAuthorCap(l); got != tc.want {
			t.Errorf("maxEvents %d / maxTotalAuthors %d: %d per author, want %d", tc.maxEvents, tc.maxTotalAuthors, got, tc.want)
		}
	}
}

// TestPassKeepsNewestEventsPerAuthor (issue 9 item 16): an author with more
// trust statements than max(20, maxEvents / maxTotalAuthors) has only the
// newest stored in a pass, and the cut shows as maxEventsPerAuthor.
func TestPassKeepsNewestEventsPerAuthor(t *testing.T) {
	now := time.Now().Unix()
	root := newPerson("root")
	var evs []*nostr.Event
	for i := range 30 { // i = 0 is the newest
		evs = append(evs, root.sign(32009, now-int64(i)*60, nostr.Tags{{"d", fmt.Sprint("s", i)}, {"p", newPerson(fmt.Sprint("p", i)).pk}, {"v", "0"}}))
	}
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, evs...)
	rg := newRig(t, settings.FrontierInterval, root, relay.URL)
	cov, err := rg.runner.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cov.State != status.StatePartial || !slices.Contains(cov.Reasons, status.ReasonFrontierTruncated) {
		t.Fatalf("coverage %+v, want partial with %s", cov, status.ReasonFrontierTruncated)
	}
	for i, ev := range evs {
		if want := i < 20; rg.sink.has(ev.ID) != want {
			t.Fatalf("statement %d (newest first) stored %v, want %v", i, !want, want)
		}
	}
	want := []status.Truncation{{Reason: status.ReasonMaxEventsPerAuthor, Cut: 1}}
	if got := rg.runner.EventCaps(); !slices.Equal(got, want) {
		t.Fatalf("event caps %+v, want %+v", got, want)
	}
}
