package frontier

import (
	"testing"
	"time"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/heap/heaptest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// BenchmarkWalk100k: a frontier walk over 100,000 authors and 1,000,000
// statements, caps high enough that the walk reaches most of the graph.
func BenchmarkWalk100k(b *testing.B) {
	h := heap.New(settings.DefaultLimits())
	heaptest.Graph{Authors: 100_000, PerAuthor: 10, Seed: 3}.Statements(func(batch []*validation.Statement) { h.Apply(batch, nil) })
	l, roots := heaptest.WideLimits, heaptest.SpreadRoots(100)
	p := Params{Roots: roots, Limits: l, Now: time.Now().Unix()}
	var r *Result
	for b.Loop() {
		start := time.Now()
		r = walk(h, p)
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "walk-ms")
	}
	b.ReportMetric(float64(r.Size()), "authors")
	b.ReportMetric(float64(h.Stats().Edges), "edges")
}
