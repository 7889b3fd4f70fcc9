package trustsync

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// movingFrontier changes when the test says; Changed is unbuffered so a
// change is known to be received.
type movingFrontier struct {
	staticFrontier
	mu      sync.Mutex
	n       int
	changed chan struct{}
}

func (f *movingFrontier) Authors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []string{fmt.Sprintf("%064x", f.n)}
}

func (f *movingFrontier) Changed() <-chan struct{} { return f.changed }

func (f *movingFrontier) change() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
	f.changed <- struct{}{}
}

// TestResubscribeDebounceIsTrailing (issue 9 item 19): the relay sessions hear
// of a new frontier 1.5 s after its last change, at most 10 s after the
// first.
func TestResubscribeDebounceIsTrailing(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name    string
		changes []time.Duration // since the first change
		want    time.Duration
	}{
		{"one change", []time.Duration{0}, 1500 * time.Millisecond},
		{"a second change restarts the wait", []time.Duration{0, s}, 2500 * time.Millisecond},
		{"a frontier that keeps moving is followed after 10 s", []time.Duration{0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s, 8 * s, 9 * s}, 10 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
			fr := &movingFrontier{changed: make(chan struct{})}
			r := New(Config{Store: openStore(t), Sink: newMemSink(), Frontier: fr, Settings: newSettings(settings.FrontierContinuous), Clock: clock})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			l := newLive(ctx, r, false)
			heard := make(chan struct{}, 1)
			go l.watchFrontier(ctx, func() { heard <- struct{}{} })
			var at time.Duration
			advanceTo := func(d time.Duration) {
				clock.Advance(d - at)
				at = d
			}
			for _, c := range tc.changes {
				advanceTo(c)
				n := clock.Waiters()
				fr.change()
				testutil.Eventually(t, "the debounce waiting", func() bool { return clock.Waiters() > n })
			}
			advanceTo(tc.want - 100*time.Millisecond)
			time.Sleep(30 * time.Millisecond)
			select {
			case <-heard:
				t.Fatalf("heard of the change before %v", tc.want)
			default:
			}
			advanceTo(tc.want)
			testutil.Eventually(t, "the relay sessions told", func() bool {
				select {
				case <-heard:
					return true
				default:
					return false
				}
			})
		})
	}
}
