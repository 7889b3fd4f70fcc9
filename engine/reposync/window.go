package reposync

import (
	"context"
	"sync"
	"time"

	"dtp-personal/engine/clock"
)

// WindowLength is the self-subscriber's batching window (GRASP-02).
const WindowLength = 5 * time.Second

// Window batches changes: the first change opens it, later ones join without
// extending it, and when it closes flush gets them all. Flushes never
// overlap, so the plan is changed by one flush at a time.
type Window struct {
	ctx    context.Context
	clock  clock.Clock
	length time.Duration
	flush  func([]Change)

	mu      sync.Mutex
	pending []Change
	open    bool
	flushMu sync.Mutex
}

// NewWindow makes a window that flushes until ctx ends.
func NewWindow(ctx context.Context, clock clock.Clock, length time.Duration, flush func([]Change)) *Window {
	return &Window{ctx: ctx, clock: clock, length: length, flush: flush}
}

// Add queues changes, opening a window if none is open.
func (w *Window) Add(cs ...Change) {
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

func (w *Window) close(at <-chan time.Time) {
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
