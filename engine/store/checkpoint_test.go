package store

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/internal/testutil"
)

// The writer does not checkpoint (wal_autocheckpoint is off on it), so the
// database file grows only when the background checkpointer copies the WAL.
func TestCommitsReachTheDatabaseFileInTheBackground(t *testing.T) {
	s, path := openTemp(t)
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	evs := make([]*nostr.Event, 2000)
	for i := range evs {
		evs[i] = trustEvent(hex64("author", i%50), hex64("subject", i), "1", int64(1_700_000_000+i))
	}
	save(t, s, evs...)
	testutil.Eventually(t, "the WAL copied into the database file", func() bool { return size() > before+100_000 })
}

// Under steady writes the passive checkpoints copy every frame but never
// start the log over (see checkpointer); the writer's guard does, so the log
// stays under its bound while readers page through the store as the
// server's REQs and the heap build do. Seen failing with the guard removed:
// the log grew to 22 MB against the bound of 4 MiB.
func TestWALStaysUnderItsBound(t *testing.T) {
	s, path := openTemp(t)
	if err := s.SetWALLimit(MinWALLimit); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var reader sync.WaitGroup
	reader.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			// the newest hundred, as a client's REQ
			if err := s.QueryEach(context.Background(), nostr.Filter{Kinds: []int{32009}, Limit: 100}, 0, func(*nostr.Event) error { return nil }); err != nil {
				t.Error(err)
				return
			}
		}
	})
	var peak int64
	const batches, perBatch = 50, 50
	for n := range batches {
		evs := make([]*nostr.Event, perBatch)
		for i := range evs {
			evs[i] = trustEvent(hex64("author", i%50), hex64("subject", n, i), "1", int64(1_700_000_000+n))
		}
		save(t, s, evs...)
		if fi, err := os.Stat(path + "-wal"); err == nil {
			peak = max(peak, fi.Size())
		}
	}
	close(stop)
	reader.Wait()
	w := s.WAL()
	t.Logf("log peak %d bytes, bound %d, reset %d times (%d held up by readers)", peak, w.Limit, w.Resets, w.Blocked)
	if peak > w.Limit || w.PeakBytes > w.Limit {
		t.Fatalf("the log reached %d bytes (store saw %d), over its bound of %d", peak, w.PeakBytes, w.Limit)
	}
	// the writes were enough to pass the bound several times over
	if w.Resets < 3 {
		t.Fatalf("the log was reset %d times; the test wrote too little to show the bound", w.Resets)
	}
}
