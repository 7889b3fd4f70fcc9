package relay

import (
	"context"
	"fmt"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
)

// tagged makes n unsigned kind-1111 events, one per second going back from
// base, each naming root by the given tag letters; first numbers their ids.
func tagged(n, first int, base int64, root string, letters ...string) []*nostr.Event {
	evs := make([]*nostr.Event, n)
	for i := range evs {
		ev := &nostr.Event{ID: fmt.Sprintf("%064x", first+i), PubKey: author, Kind: 1111, CreatedAt: nostr.Timestamp(base - int64(i))}
		for _, l := range letters {
			ev.Tags = append(ev.Tags, nostr.Tag{l, root})
		}
		evs[i] = ev
	}
	return evs
}

// FetchEach pages #e and #E over one root in one REQ per page: of the 500
// comments naming the root by both, most cross the wire once (820 events
// sent for 700 distinct, against 1,200 one filter after another), every
// event of either filter arrives once, and a relay whose page size is not
// known yet gets the filters one after another with the same result.
func TestFetchEachSendsSharedEventsOnce(t *testing.T) {
	root := fmt.Sprintf("%064x", 999999)
	var evs []*nostr.Event
	evs = append(evs, tagged(500, 1, 1_700_000_000, root, "e", "E")...)
	evs = append(evs, tagged(100, 1001, 1_700_000_000-250, root, "e")...) // interleaved in time with the shared ones
	evs = append(evs, tagged(100, 2001, 1_700_000_000-700, root, "E")...) // older than all of them
	filters := nostr.Filters{{Tags: nostr.TagMap{"e": {root}}}, {Tags: nostr.TagMap{"E": {root}}}}

	for _, tc := range []struct {
		name             string
		mode             faultrelay.Mode
		minSent, maxSent int64
	}{
		{"page size published", faultrelay.Mode{CapLimit: 50, AdvertiseCap: true}, 700, 850},
		{"page size unknown", faultrelay.Mode{}, 1200, 1300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := faultrelay.StartForTest(t, tc.mode, evs...)
			c := dial(t, r.URL, Options{})
			got := map[string]bool{}
			st, left, err := c.FetchEach(context.Background(), filters, func(page []*nostr.Event) error {
				for _, ev := range page {
					if got[ev.ID] {
						t.Errorf("event %s handed over twice", ev.ID)
					}
					got[ev.ID] = true
				}
				return nil
			})
			if err != nil || len(left) != 0 {
				t.Fatalf("FetchEach: %v, left %v", err, left)
			}
			if len(got) != len(evs) || st.Events != len(evs) {
				t.Fatalf("got %d events (stats %d), want %d", len(got), st.Events, len(evs))
			}
			if sent := r.EventsSent(); sent < tc.minSent || sent > tc.maxSent {
				t.Fatalf("relay sent %d events for %d distinct, want %d to %d", sent, len(evs), tc.minSent, tc.maxSent)
			}
		})
	}
}

// A REQ that fails part-way leaves each unfinished filter with the until
// to go on from; going on from there brings the rest.
func TestFetchEachLeavesWhereToGoOn(t *testing.T) {
	root := fmt.Sprintf("%064x", 999999)
	evs := tagged(300, 1, 1_700_000_000, root, "e", "E")
	r := faultrelay.StartForTest(t, faultrelay.Mode{CapLimit: 50, AdvertiseCap: true, DropAfter: 120}, evs...)
	filters := nostr.Filters{{Tags: nostr.TagMap{"e": {root}}}, {Tags: nostr.TagMap{"E": {root}}}}
	got := map[string]bool{}
	onPage := func(page []*nostr.Event) error {
		for _, ev := range page {
			got[ev.ID] = true
		}
		return nil
	}
	_, left, err := dial(t, r.URL, Options{}).FetchEach(context.Background(), filters, onPage)
	if err == nil || len(left) != 2 || left[0].Until == nil {
		t.Fatalf("after the drop: err %v, left %v: want both filters left with an until", err, left)
	}
	r.SetMode(faultrelay.Mode{CapLimit: 50, AdvertiseCap: true})
	before := len(got)
	if _, left, err = dial(t, r.URL, Options{}).FetchEach(context.Background(), left, onPage); err != nil || len(left) != 0 {
		t.Fatalf("going on: %v, left %v", err, left)
	}
	if len(got) != len(evs) || before == 0 {
		t.Fatalf("got %d events (%d before the drop), want %d", len(got), before, len(evs))
	}
}
