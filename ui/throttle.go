package ui

import (
	"sync"
	"time"
)

// throttle passes on pushed values at most once per interval, always the
// latest one: the first value goes out at once, values pushed while waiting
// collapse into one delivered at the end of the interval. Deliveries happen
// one at a time on the throttle's own goroutine, in push order.
type throttle[T any] struct {
	interval time.Duration
	deliver  func(T)

	mu      sync.Mutex
	latest  T
	pending chan struct{} // holds a token while latest is undelivered
	done    chan struct{}
	exited  chan struct{}
	stop    sync.Once
}

func newThrottle[T any](interval time.Duration, deliver func(T)) *throttle[T] {
	t := &throttle[T]{
		interval: interval,
		deliver:  deliver,
		pending:  make(chan struct{}, 1),
		done:     make(chan struct{}),
		exited:   make(chan struct{}),
	}
	go t.run()
	return t
}

// Push offers a value; it never blocks.
func (t *throttle[T]) Push(v T) {
	t.mu.Lock()
	t.latest = v
	t.mu.Unlock()
	select {
	case t.pending <- struct{}{}:
	default: // a delivery is already due and will carry v
	}
}

// Stop ends deliveries and waits for one in progress to return; values
// pushed afterwards are dropped.
func (t *throttle[T]) Stop() {
	t.stop.Do(func() { close(t.done) })
	<-t.exited
}

func (t *throttle[T]) run() {
	defer close(t.exited)
	pause := time.NewTimer(0)
	<-pause.C
	for {
		select {
		case <-t.pending:
		case <-t.done:
			return
		}
		select {
		case <-t.done: // Stop won the race with a push
			return
		default:
		}
		t.mu.Lock()
		v := t.latest
		t.mu.Unlock()
		t.deliver(v)
		pause.Reset(t.interval)
		select {
		case <-pause.C:
		case <-t.done:
			return
		}
	}
}
