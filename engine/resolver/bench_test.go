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
