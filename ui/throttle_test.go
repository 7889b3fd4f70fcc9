package ui

import (
	"sync"
	"testing"
	"time"
)

type deliveries struct {
	mu     sync.Mutex
	values []int
	times  []time.Time
}

func (d *deliveries) add(v int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.values = append(d.values, v)
	d.times = append(d.times, time.Now())
}

func (d *deliveries) snapshot() ([]int, []time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]int(nil), d.values...), append([]time.Time(nil), d.times...)
}

func TestThrottleCollapsesBurstsAndKeepsLatest(t *testing.T) {
	const interval = 50 * time.Millisecond
	var got deliveries
	th := newThrottle(interval, got.add)
	defer th.Stop()

	// 1000 pushes over ~200 ms: at most one delivery per interval may pass.
	start := time.Now()
	for i := 1; i <= 1000; i++ {
		th.Push(i)
		if i%5 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	elapsed := time.Since(start)
	time.Sleep(3 * interval)

	values, times := got.snapshot()
	if len(values) == 0 || times[0].Sub(start) > interval/2 {
		t.Fatalf("first push must go out at once; deliveries = %v at %v", values, times)
	}
	if last := values[len(values)-1]; last != 1000 {
		t.Fatalf("last delivery = %d, want the latest push 1000", last)
	}
	if limit := int(elapsed/interval) + 2; len(values) > limit {
		t.Fatalf("%d deliveries in %v; want at most %d", len(values), elapsed, limit)
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Fatalf("deliveries out of order: %v", values)
		}
		// Allow timer slack but catch a missing pause.
		if gap := times[i].Sub(times[i-1]); gap < interval*9/10 {
			t.Fatalf("deliveries %d and %d only %v apart", i-1, i, gap)
		}
	}
}

func TestThrottleDeliversIdlePushAtOnce(t *testing.T) {
	var got deliveries
	th := newThrottle(time.Hour, got.add)
	defer th.Stop()
	th.Push(7)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if values, _ := got.snapshot(); len(values) == 1 && values[0] == 7 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("an idle push was not delivered at once")
}

func TestThrottleStopDropsLaterPushes(t *testing.T) {
	var got deliveries
	th := newThrottle(10*time.Millisecond, got.add)
	th.Stop()
	th.Stop() // idempotent
	th.Push(1)
	time.Sleep(50 * time.Millisecond)
	if values, _ := got.snapshot(); len(values) != 0 {
		t.Fatalf("delivered %v after Stop", values)
	}
}
