package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// outQueue is a connection's outgoing frames (everything but OKs), bounded
// in bytes. Its bytes also count toward the server's total (queued), which
// is how a slow client is found and dropped before it takes memory from
// others.
type outQueue struct {
	queued *atomic.Int64

	mu     sync.Mutex
	frames [][]byte
	head   int // frames[head:] are waiting
	bytes  int
	closed bool
	// stalledSince is when the writer last took a frame or the queue last
	// became non-empty: how long it has had something to send and sent
	// nothing.
	stalledSince time.Time

	ready chan struct{} // a frame was added (the writer waits on it)
	room  chan struct{} // a frame was taken (a waiting sender waits on it)
}

func newOutQueue(queued *atomic.Int64) *outQueue {
	return &outQueue{queued: queued, ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// push adds b unless the queue is closed or b does not fit in limit bytes
// (one frame always fits an empty queue); fit reports which.
func (q *outQueue) push(b []byte, limit int) (added, fit bool) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false, true
	}
	if q.bytes > 0 && q.bytes+len(b) > limit {
		q.mu.Unlock()
		return false, false
	}
	if q.bytes == 0 {
		q.stalledSince = time.Now()
	}
	q.frames = append(q.frames, b)
	q.bytes += len(b)
	q.mu.Unlock()
	q.queued.Add(int64(len(b)))
	signal(q.ready)
	return true, true
}

// pop takes the oldest frame, if any.
func (q *outQueue) pop() ([]byte, bool) {
	q.mu.Lock()
	if q.head == len(q.frames) {
		q.mu.Unlock()
		return nil, false
	}
	b := q.frames[q.head]
	q.frames[q.head] = nil
	q.head++
	if q.head == len(q.frames) { // empty: reuse the slice from its start
		q.frames, q.head = q.frames[:0], 0
	}
	q.bytes -= len(b)
	q.stalledSince = time.Now()
	q.mu.Unlock()
	q.queued.Add(-int64(len(b)))
	signal(q.room)
	return b, true
}

// close drops what is queued, releasing its bytes from the total at once,
// and refuses further frames.
func (q *outQueue) close() {
	q.mu.Lock()
	n := q.bytes
	q.frames, q.head, q.bytes, q.closed = nil, 0, 0, true
	q.mu.Unlock()
	q.queued.Add(-int64(n))
	signal(q.room)
}

// stalled reports the queued bytes and since when nothing was sent; zero
// bytes: nothing is waiting.
func (q *outQueue) stalled() (int, time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes, q.stalledSince
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
