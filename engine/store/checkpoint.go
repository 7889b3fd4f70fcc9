package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointGap spaces background checkpoints: each one copies what the WAL
// gathered since the last and syncs the database file once.
const checkpointGap = 500 * time.Millisecond

// DefaultWALLimit is the bound the write-ahead log stays under unless the
// user sets another (settings.Limits.MaxWALMiB).
const DefaultWALLimit = 64 << 20

// MinWALLimit is the smallest bound the store takes (tests pass it with
// little data). The user's setting starts at 32 MiB, whose half holds the
// largest transaction: a batch of 1000 events writes about 9 MiB of log.
const MinWALLimit = 4 << 20

// resetWait bounds how long one truncating checkpoint waits for the readers
// that still use the log, and so how long it holds back other writes.
const resetWait = time.Second

// blockedWriteWait bounds how long a write waits, with the log at its bound,
// for readers to let it be reset; past it the write goes ahead (logged by
// the caller through WALStats.Blocked), since an answer may be waiting on it.
const blockedWriteWait = time.Minute

// checkpointer copies committed WAL frames into the database file on its own
// connection, so that the single writer never does it inside a commit (with
// SQLite's automatic checkpoint, which the writer connection turns off, it
// cost about a tenth of a batch's time). PASSIVE never waits for readers or
// the writer; frames still needed by a reader are copied on a later round.
//
// PASSIVE copies, but never resets the log: SQLite starts the log over only
// when a write transaction begins while every frame is already copied, and
// under steady ingest the next batch has always been committed while the
// checkpoint was copying the last (measured: a 100,000-event first sync left
// a 980 MB log, every checkpoint having copied all it saw; no reader was
// involved). So the writer resets the log itself (guard) once it passes half
// its limit: a TRUNCATE checkpoint takes the write lock, copies the few frames
// the last PASSIVE left, waits for the readers still in the log and cuts the
// file to zero. It runs on the writer's connection: run on another, it made
// the writer drop its page cache (the log's header changed under it), which
// halved the writer's rate.
type checkpointer struct {
	db      *sql.DB // the checkpointer's own connection
	w       *sql.DB // the writer's
	walPath string
	running sync.Mutex // one checkpoint at a time in this process (SQLite refuses a second at once)
	limit   atomic.Int64
	peak    atomic.Int64
	resets  atomic.Int64 // truncating checkpoints that emptied the log
	blocked atomic.Int64 // truncating checkpoints readers kept from finishing

	guarding sync.Mutex // one guard at a time

	kick  chan struct{}
	stop  chan struct{}
	ended chan struct{}
	once  sync.Once // Store.Close may run twice
}

func startCheckpointer(db, w *sql.DB, walPath string) *checkpointer {
	c := &checkpointer{db: db, w: w, walPath: walPath, kick: make(chan struct{}, 1), stop: make(chan struct{}), ended: make(chan struct{})}
	c.limit.Store(DefaultWALLimit)
	go c.run()
	return c
}

// committed tells the checkpointer that the WAL grew; it never blocks.
func (c *checkpointer) committed() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.ended)
	for {
		select {
		case <-c.kick:
		case <-c.stop:
			return
		}
		// an error (busy, full disk) leaves the frames for the next round;
		// the writer reports a full disk itself
		c.running.Lock()
		_, _ = c.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		c.running.Unlock()
		select {
		case <-time.After(checkpointGap):
		case <-c.stop:
			return
		}
	}
}

// walSize is the log file's size now (0 when there is none), which it also
// keeps as the peak.
func (c *checkpointer) walSize() int64 {
	fi, err := os.Stat(c.walPath)
	if err != nil {
		return 0
	}
	size := fi.Size()
	for {
		peak := c.peak.Load()
		if size <= peak || c.peak.CompareAndSwap(peak, size) {
			return size
		}
	}
}

// guard runs before each write transaction and keeps the log under its
// limit: past half of it, the write waits until the log is reset, so a
// transaction smaller than the other half still fits. A reset waits for the
// readers still in the log; one that readers hold up is tried again every
// checkpointGap, for at most blockedWriteWait.
func (c *checkpointer) guard() {
	limit := c.limit.Load()
	if c.walSize() <= limit/2 {
		return
	}
	c.guarding.Lock()
	defer c.guarding.Unlock()
	deadline := time.Now().Add(blockedWriteWait)
	// another writer may have reset it meanwhile
	for c.walSize() > limit/2 && !c.reset() && time.Now().Before(deadline) {
		select {
		case <-time.After(checkpointGap):
		case <-c.stop:
			return
		}
	}
}

// reset copies every frame into the database file and empties the log;
// false when a reader still using the log (or another process's write or
// checkpoint) kept it from finishing.
func (c *checkpointer) reset() bool {
	c.running.Lock()
	defer c.running.Unlock()
	ctx := context.Background()
	conn, err := c.w.Conn(ctx) // the writer's one connection, held to the end
	if err == nil {
		defer conn.Close()
		err = waitFor(ctx, conn, resetWait)
	}
	var busy, logFrames, copied int
	if err == nil {
		err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &copied)
		err = errors.Join(err, waitFor(ctx, conn, busyTimeoutMillis*time.Millisecond))
	}
	if err != nil || busy != 0 {
		c.blocked.Add(1)
		return false
	}
	c.resets.Add(1)
	return true
}

// waitFor sets how long conn waits for a lock before it fails busy.
func waitFor(ctx context.Context, conn *sql.Conn, d time.Duration) error {
	_, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", d.Milliseconds()))
	return err
}

// setLimit changes the bound; journal_size_limit makes SQLite itself cut a
// log it starts over (when idle) back to it.
func (c *checkpointer) setLimit(limit int64) error {
	if limit < MinWALLimit {
		return fmt.Errorf("store: a write-ahead log limit of %d bytes is below the least, %d", limit, MinWALLimit)
	}
	if _, err := c.w.Exec(fmt.Sprintf("PRAGMA journal_size_limit = %d", limit)); err != nil {
		return fmt.Errorf("store: journal_size_limit: %w", err)
	}
	c.limit.Store(limit)
	return nil
}

func (c *checkpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.ended
	return c.db.Close()
}

// WALStats is the write-ahead log's size against its bound.
type WALStats struct {
	Bytes     int64 // the log file now
	PeakBytes int64 // the largest seen since the store opened
	Limit     int64 // the bound
	Resets    int64 // times the writer emptied it at half the bound
	// Blocked counts resets that readers still in the log kept from
	// finishing (each is tried again half a second later).
	Blocked int64
}

// WAL reports the write-ahead log's size, peak and bound.
func (s *Store) WAL() WALStats {
	size := s.ckpt.walSize()
	return WALStats{Bytes: size, PeakBytes: s.ckpt.peak.Load(), Limit: s.ckpt.limit.Load(),
		Resets: s.ckpt.resets.Load(), Blocked: s.ckpt.blocked.Load()}
}

// SetWALLimit sets the bound the write-ahead log stays under (at least
// MinWALLimit): the writer resets the log when it passes half of it.
func (s *Store) SetWALLimit(limit int64) error { return s.ckpt.setLimit(limit) }

// Size is the database file's size in bytes, without its log.
func (s *Store) Size() int64 {
	fi, err := os.Stat(s.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
