package engine

import (
	"testing"
	"time"
)

// BenchmarkProtectedAuthors100k is the walk the automatic prune makes every
// hour over 100,000 authors (protectedAuthors: every positive hop from the
// roots to the hard cap on depth) under the heap's read lock, which commits
// wait for: it reports the walk's milliseconds and whom it protects.
func BenchmarkProtectedAuthors100k(b *testing.B) {
	dir, _ := scaleDataDir(b, 100_000)
	eng, err := Open(Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	var p protection
	start := time.Now()
	for b.Loop() {
		p = eng.protectedAuthors()
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "walk-ms")
	b.ReportMetric(float64(len(p.reach)), "reached")
	b.ReportMetric(float64(len(p.hinted)), "hinted")
}
