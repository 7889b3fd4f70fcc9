package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/internal/testutil"
)

const benchBatch = 1000

// BenchmarkSaveBatch measures the store-only ceiling of the ingest pipeline:
// batches of 1000 trust statements with ~10 tags each, one transaction per
// batch, fsync on every commit.
//   - fresh: every event opens a new slot.
//   - replacing: every event supersedes the stored winner of its slot.
func BenchmarkSaveBatch(b *testing.B) {
	b.Run("fresh", func(b *testing.B) {
		s, _ := openTemp(b)
		benchSave(b, func(n, i int) *nostr.Event {
			return trustEvent(hex64("author", i%50), hex64("subject", n, i), "1", int64(1_700_000_000+n))
		}, s)
	})
	b.Run("replacing", func(b *testing.B) {
		s, _ := openTemp(b)
		benchSave(b, func(n, i int) *nostr.Event {
			return trustEvent(hex64("author", i%50), hex64("subject", i), fmt.Sprint(n%2), int64(1_700_000_000+n))
		}, s)
	})
}

func benchSave(b *testing.B, event func(batch, i int) *nostr.Event, s *Store) {
	evs := make([]*nostr.Event, benchBatch)
	var cpu time.Duration
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		for i := range evs {
			evs[i] = event(n, i)
		}
		cpu0 := testutil.ProcessCPU(b)
		b.StartTimer()
		res, err := s.SaveBatch(evs)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += testutil.ProcessCPU(b) - cpu0
		if res[0].Outcome != Stored {
			b.Fatalf("batch %d: %+v", n, res[0])
		}
		b.StartTimer()
	}
	events := float64(b.N * benchBatch)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	// CPU seconds are what SQLite and the driver cost, independent of how
	// busy the (shared) machine is; wall time also includes the fsyncs.
	b.ReportMetric(events/cpu.Seconds(), "events/cpu-s")
}

// BenchmarkScan measures Scan, the read side of the heap build at start-up:
// 20,000 stored trust statements read back per iteration.
func BenchmarkScan(b *testing.B) {
	s, _ := openTemp(b)
	const stored = 20 * benchBatch
	for n := 0; n < stored/benchBatch; n++ {
		evs := make([]*nostr.Event, benchBatch)
		for i := range evs {
			evs[i] = trustEvent(hex64("author", i%50), hex64("subject", n, i), "1", int64(1_700_000_000+n))
		}
		if _, err := s.SaveBatch(evs); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	var cpu time.Duration
	for b.Loop() {
		cpu0 := testutil.ProcessCPU(b)
		seen := 0
		if err := s.Scan(ctx, []int{32009}, func(*nostr.Event) error { seen++; return nil }); err != nil {
			b.Fatal(err)
		}
		cpu += testutil.ProcessCPU(b) - cpu0
		if seen != stored {
			b.Fatalf("scanned %d events, want %d", seen, stored)
		}
	}
	events := float64(b.N * stored)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(events/cpu.Seconds(), "events/cpu-s")
}

// BenchmarkWALLimit is SaveBatch's fresh case under several bounds of the
// write-ahead log, and with none (the log then holds every batch since the
// store opened): what the guard's resets cost the writer, the log's peak and
// how often it was reset. Run with -benchtime 100x (100 batches of 1000).
func BenchmarkWALLimit(b *testing.B) {
	for _, mib := range []int64{32, 64, 256, 1 << 20} {
		name := fmt.Sprintf("%dMiB", mib)
		if mib == 1<<20 {
			name = "unbounded"
		}
		b.Run(name, func(b *testing.B) {
			s, _ := openTemp(b)
			if err := s.SetWALLimit(mib << 20); err != nil {
				b.Fatal(err)
			}
			benchSave(b, func(n, i int) *nostr.Event {
				return trustEvent(hex64("author", i%50), hex64("subject", n, i), "1", int64(1_700_000_000+n))
			}, s)
			w := s.WAL()
			b.ReportMetric(float64(w.PeakBytes)/(1<<20), "wal-peak-MiB")
			b.ReportMetric(float64(w.Resets), "resets")
		})
	}
}

// BenchmarkCursorReads300k reads what a pass with nothing new reads of the
// cursors of a 300,000-person frontier on one relay: which members' trust
// history completed (Completed, as the newcomers' tracking reads it) and
// their trust cursors (Cursors, as the pass plans its REQs from them). It
// reports each read's milliseconds.
func BenchmarkCursorReads300k(b *testing.B) {
	const authors, relay = 300_000, "wss://relay.example"
	s, _ := openTemp(b)
	keys := make([]string, authors)
	for i := range keys {
		keys[i] = hex64("member", i)
	}
	slices.Sort(keys)
	for _, scope := range []string{"trust", "ratings"} {
		for chunk := range slices.Chunk(keys, 10_000) {
			cs := make([]Cursor, len(chunk))
			for i, k := range chunk {
				cs[i] = Cursor{CursorKey: CursorKey{relay, scope, k}, LastSeenCreatedAt: 1_700_000_000, LastEoseAt: 1_700_000_100}
			}
			if err := s.SaveCursors(cs); err != nil {
				b.Fatal(err)
			}
		}
	}
	var completed, cursors time.Duration
	for b.Loop() {
		start := time.Now()
		done, err := s.Completed([]string{relay}, "trust", keys)
		if err != nil || len(done) != authors {
			b.Fatalf("%d completed, %v", len(done), err)
		}
		completed += time.Since(start)
		start = time.Now()
		cs, err := s.Cursors(relay, "trust", keys)
		if err != nil || len(cs) != authors {
			b.Fatalf("%d cursors, %v", len(cs), err)
		}
		cursors += time.Since(start)
	}
	b.ReportMetric(float64(completed.Milliseconds())/float64(b.N), "completed-ms")
	b.ReportMetric(float64(cursors.Milliseconds())/float64(b.N), "cursors-ms")
}
