package trustsync

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// countingSink only counts: the benchmark measures the pull, not ingest.
type countingSink struct{ n atomic.Int64 }

func (s *countingSink) Ingest(_ context.Context, _ string, evs []*nostr.Event) (int, error) {
	s.n.Add(int64(len(evs)))
	return len(evs), nil
}

// staticFrontier is a fixed author list.
type staticFrontier struct{ authors []string }

func (f staticFrontier) Authors() []string             { return f.authors }
func (f staticFrontier) DiscoverySubjects() []string   { return nil }
func (f staticFrontier) ClaimCandidates() []string     { return nil }
func (f staticFrontier) HintedPubkeys() []string       { return nil }
func (f staticFrontier) Changed() <-chan struct{}      { return nil }
func (f staticFrontier) Refresh(context.Context) error { return nil }
func (f staticFrontier) ClaimsFetched([]string)        {}

// frontierEvents are authors x perAuthor unsigned trust events and the
// authors' keys.
func frontierEvents(authors, perAuthor int) ([]*nostr.Event, []string) {
	var evs []*nostr.Event
	var keys []string
	for a := range authors {
		pk := fmt.Sprintf("%064x", a+1)
		keys = append(keys, pk)
		for i := range perAuthor {
			evs = append(evs, &nostr.Event{
				ID: fmt.Sprintf("%032x%032x", a+1, i+1), PubKey: pk, Kind: 32009,
				CreatedAt: nostr.Timestamp(1_700_000_000 - i), Tags: nostr.Tags{{"d", fmt.Sprint(i)}, {"v", "1"}},
				Sig: fmt.Sprintf("%0128x", i),
			})
		}
	}
	return evs, keys
}

// BenchmarkPull pulls a 100,000-event frontier (5,000 authors x 20 trust
// events, unsigned) from a well-behaved loopback relay in one full pass.
func BenchmarkPull(b *testing.B) {
	evs, keys := frontierEvents(5000, 20)
	relay := faultrelay.StartForTest(b, faultrelay.Mode{}, evs...)
	b.ResetTimer()
	var total int64
	for range b.N {
		b.StopTimer()
		st := openStore(b, relay.URL)
		sink := &countingSink{}
		r := New(Config{Store: st, Sink: sink, Frontier: staticFrontier{authors: keys}, Settings: newSettings(settings.FrontierInterval)})
		b.StartTimer()
		cov, err := r.RunOnce(context.Background())
		if err != nil || cov.State != status.StateComplete || sink.n.Load() != int64(len(evs)) {
			b.Fatalf("coverage %+v err %v, %d events", cov, err, sink.n.Load())
		}
		total += sink.n.Load()
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkFirstSyncThroughLatency is the first sync of a 5,000-author
// frontier (one trust event each: 500 REQs of 20 authors with the ratings)
// from a relay 50 ms away each way (a loopback proxy) that publishes an
// allowance of 4 or of 50 concurrent subscriptions: a pass runs as many
// pages at once as the relay allows. Run with -benchtime 1x.
func BenchmarkFirstSyncThroughLatency(b *testing.B) {
	evs, keys := frontierEvents(5000, 1)
	for _, allowed := range []int{4, 50} {
		b.Run(fmt.Sprintf("allows-%d", allowed), func(b *testing.B) {
			relay := faultrelay.StartForTest(b, faultrelay.Mode{CapLimit: 500, AdvertiseCap: true,
				MaxSubscriptions: allowed, AdvertiseSubscriptions: true}, evs...)
			proxy := testutil.StartDelayProxy(b, strings.TrimPrefix(relay.URL, "ws://"), 50*time.Millisecond)
			url := "ws://" + proxy.Addr
			relay.ResetCounters()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				sink := &countingSink{}
				r := New(Config{Store: openStore(b, url), Sink: sink, Frontier: staticFrontier{authors: keys},
					Settings: newSettings(settings.FrontierInterval)})
				b.StartTimer()
				cov, err := r.RunOnce(context.Background())
				if err != nil || cov.State != status.StateComplete || sink.n.Load() != int64(len(evs)) {
					b.Fatalf("coverage %+v err %v, %d of %d events", cov, err, sink.n.Load(), len(evs))
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/sync")
			b.ReportMetric(float64(relay.Reqs())/float64(b.N), "REQs/sync")
			b.ReportMetric(float64(relay.RefusedReqs())/float64(b.N), "refused/sync")
		})
	}
}
