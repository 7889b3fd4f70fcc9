package engine

import (
	"sync/atomic"
	"testing"
	"time"

	"dtp-personal/engine/status"
)

// TestSubscribeCoalescesBursts: the engine is the one status coalescer, so a
// storm of changes reaches a subscriber as at most four snapshots a second,
// and nothing reaches it once cancel has returned.
func TestSubscribeCoalescesBursts(t *testing.T) {
	t.Parallel()
	eng, _ := startEngine(t, Options{})
	var got atomic.Int64
	cancel := eng.Subscribe(func(status.Snapshot) { got.Add(1) })
	const storm = 2 * time.Second
	start := time.Now()
	for time.Since(start) < storm {
		eng.notify()
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	if n, limit := got.Load(), int64(elapsed/(250*time.Millisecond))+2; n == 0 || n > limit {
		t.Fatalf("%d snapshots in %v of changes; want 1..%d", n, elapsed, limit)
	}
	cancel()
	after := got.Load()
	eng.notify()
	time.Sleep(1500 * time.Millisecond) // past the once-a-second snapshot
	if n := got.Load(); n != after {
		t.Fatalf("%d snapshots after cancel", n-after)
	}
}
