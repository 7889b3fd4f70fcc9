package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// A UI thread that is busy for a while shows up as the report's maximum;
// the other turns stay short, and the report reaches the file as JSON.
func TestLagProbeMeasuresTheWaitForTheUIThread(t *testing.T) {
	const busy = 120 * time.Millisecond
	var mu sync.Mutex
	calls := 0
	schedule := func(f func()) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		go func() {
			if n == 3 {
				time.Sleep(busy) // the loop is stuck in other work
			}
			f()
		}()
	}
	started := time.Now()
	p := startLagProbe(schedule, time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for {
		p.mu.Lock()
		n := len(p.lags)
		p.mu.Unlock()
		if n >= 9 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d samples after 5 s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	path := filepath.Join(t.TempDir(), "lag.json")
	if err := writeLagReport(p, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Samples int
		MaxMs   float64
		P99Ms   float64
		P50Ms   float64
		MaxAtS  float64
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report %s: %v", b, err)
	}
	if r.Samples < 9 || r.MaxMs < float64(busy.Milliseconds()) || r.MaxMs > 2000 || r.P50Ms >= float64(busy.Milliseconds()) {
		t.Fatalf("report %s: want ≥9 samples, max ≥ %v, median below it", b, busy)
	}
	if r.MaxAtS <= 0 || r.MaxAtS > time.Since(started).Seconds() {
		t.Fatalf("report %s: the longest wait began at %v s, want during the run (the third turn)", b, r.MaxAtS)
	}
}

// Quitting while a callback waits on a loop that will never run it must not
// hang the app's exit.
func TestLagProbeStopsWithACallbackPending(t *testing.T) {
	p := startLagProbe(func(func()) {}, time.Millisecond)
	done := make(chan LagReport, 1)
	go func() { done <- p.report() }()
	select {
	case r := <-done:
		if r.Samples != 0 {
			t.Fatalf("%d samples from callbacks that never ran", r.Samples)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("report hangs while a callback is pending")
	}
}

func TestSummarizeUsesNearestRank(t *testing.T) {
	lags := make([]time.Duration, 200)
	for i := range lags {
		lags[len(lags)-1-i] = time.Duration(i+1) * time.Millisecond // 200 ms … 1 ms, unsorted
	}
	r := summarize(lags)
	if r != (LagReport{Samples: 200, MaxMs: 200, P99Ms: 198, P50Ms: 100}) {
		t.Fatalf("summarize = %+v", r)
	}
	if r := summarize(nil); r != (LagReport{}) {
		t.Fatalf("summarize(nil) = %+v", r)
	}
}
