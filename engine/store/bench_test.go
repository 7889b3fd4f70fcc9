package store

import (
	"fmt"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

const benchBatch = 1000

// BenchmarkSaveBatch measures the store-only ceiling of the ingest pipeline:
// batches of 1000 trust statements with ~10 tags each, one transaction per
// batch, fsync on every commit.
//   - fresh: every event opens a new slot.
//   - replacing: every event supersedes the stored winner of its slot.
func BenchmarkSaveBatch(b *testing.B) {
	b.Run("fresh", func(b *testing.B) {
		benchSave(b, func(n, i int) *nostr.Event {
			return trustEvent(hex64("author", i%50), hex64("subject", n, i), "1", int64(1_700_000_000+n))
		})
	})
	b.Run("replacing", func(b *testing.B) {
		benchSave(b, func(n, i int) *nostr.Event {
			return trustEvent(hex64("author", i%50), hex64("subject", i), fmt.Sprint(n%2), int64(1_700_000_000+n))
		})
	})
}

func benchSave(b *testing.B, event func(batch, i int) *nostr.Event) {
	s, _ := openTemp(b)
	evs := make([]*nostr.Event, benchBatch)
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		for i := range evs {
			evs[i] = event(n, i)
		}
		b.StartTimer()
		res, err := s.SaveBatch(evs)
		if err != nil {
			b.Fatal(err)
		}
		if res[0].Outcome != Stored {
			b.Fatalf("batch %d: %+v", n, res[0])
		}
	}
	b.ReportMetric(float64(b.N*benchBatch)/b.Elapsed().Seconds(), "events/s")
}
