package resolver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/heap/heaptest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// BenchmarkResolve100k: resolve latency over 100,000 authors and 1,000,000
// statements with the whole graph in the frontier; reports p50 and p99, and
// the first question's time, which includes the trust and ratings walks that
// later questions with the same roots, context and band share (cold-ms).
func BenchmarkResolve100k(b *testing.B) {
	h := heap.New(settings.DefaultLimits())
	heaptest.Graph{Authors: 100_000, PerAuthor: 10, Seed: 3}.Statements(func(batch []*validation.Statement) { h.Apply(batch, nil) })
	l, roots := heaptest.WideLimits, heaptest.SpreadRoots(100)
	tr := frontier.NewTracker(h, frontier.Config{Limits: l, Roots: roots})
	tr.Recompute()
	res := New(h, tr, nil, nil)
	rng := rand.New(rand.NewPCG(5, 6))
	start := time.Now()
	if _, err := res.Resolve(context.Background(), Query{Subject: heaptest.Pubkey(1)}); err != nil {
		b.Fatal(err)
	}
	cold := time.Since(start)
	var lat []time.Duration
	for b.Loop() {
		q := Query{Subject: heaptest.Pubkey(1 + rng.IntN(100_000))}
		if rng.IntN(4) == 0 {
			q.Subject = fmt.Sprintf("user:id:%d", rng.IntN(100_000))
		}
		start := time.Now()
		if _, err := res.Resolve(context.Background(), q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(tr.Current().Size()), "frontier")
	b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
}

// BenchmarkResolveBatch50: a batch of 50 subjects against 50 single
// questions over the same 100,000-author graph, in the same run (the walks
// are warm for both): batch-µs and singles-µs per 50 subjects, and their
// ratio.
func BenchmarkResolveBatch50(b *testing.B) {
	h := heap.New(settings.DefaultLimits())
	heaptest.Graph{Authors: 100_000, PerAuthor: 10, Seed: 3}.Statements(func(batch []*validation.Statement) { h.Apply(batch, nil) })
	tr := frontier.NewTracker(h, frontier.Config{Limits: heaptest.WideLimits, Roots: heaptest.SpreadRoots(100)})
	tr.Recompute()
	res := New(h, tr, nil, nil)
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func() []string {
		out := make([]string, 50)
		for i := range out {
			out[i] = heaptest.Pubkey(1 + rng.IntN(100_000))
		}
		return out
	}
	var batch, singles time.Duration
	ctx := context.Background()
	runBatch := func() {
		subjects := pick()
		start := time.Now()
		if _, err := res.ResolveBatch(ctx, Query{}, subjects); err != nil {
			b.Fatal(err)
		}
		batch += time.Since(start)
	}
	runSingles := func() {
		subjects := pick()
		start := time.Now()
		for _, s := range subjects {
			if _, err := res.Resolve(ctx, Query{Subject: s}); err != nil {
				b.Fatal(err)
			}
		}
		singles += time.Since(start)
	}
	runBatch() // the shared walks, outside the figures
	batch = 0
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 { // neither always goes first
			runBatch()
			runSingles()
		} else {
			runSingles()
			runBatch()
		}
	}
	b.ReportMetric(float64(batch.Microseconds())/float64(b.N), "batch-µs")
	b.ReportMetric(float64(singles.Microseconds())/float64(b.N), "singles-µs")
	b.ReportMetric(float64(singles)/float64(batch), "singles/batch")
}
