package reposync

import (
	"context"
	"sync"
	"time"

	"dtp-personal/engine/clock"
)

// windowLength is the self-subscriber's batching window (GRASP-02).
const windowLength = 5 * time.Second

// window batches changes: the first change opens it, later ones join without
// extending it, and when it closes flush gets them all. Flushes never
// overlap, so the plan is changed by one flush at a time.
type window struct {
	ctx    context.Context
	clock  clock.Clock
	length time.Duration
	flush  func([]change)

	mu      sync.Mutex
	pending []change
	open    bool
	flushMu sync.Mutex
}

// newWindow makes a window that flushes until ctx ends.
func newWindow(ctx context.Context, clock clock.Clock, length time.Duration, flush func([]change)) *window {
	return &window{ctx: ctx, clock: clock, length: length, flush: flush}
}

// Add queues changes, opening a window if none is open.
func (w *window) Add(cs ...change) {
	if len(cs) == 0 {
		return
	}
	w.mu.Lock()
	w.pending = append(w.pending, cs...)
	start := !w.open
	w.open = true
	w.mu.Unlock()
	if start {
		go w.close(w.clock.After(w.length))
	}
}

func (w *window) close(at <-chan time.Time) {
	select {
	case <-at:
	case <-w.ctx.Done():
		return
	}
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	batch := w.pending
	w.pending, w.open = nil, false
	w.mu.Unlock()
	w.flush(batch)
}
