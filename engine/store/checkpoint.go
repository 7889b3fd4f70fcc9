package store

import (
	"database/sql"
	"sync"
	"time"
)

// checkpointGap spaces background checkpoints: each one copies what the WAL
// gathered since the last and syncs the database file once.
const checkpointGap = 500 * time.Millisecond

// checkpointer copies committed WAL frames into the database file on its own
// connection, so that the single writer never does it inside a commit (with
// SQLite's automatic checkpoint, which the writer connection turns off, it
// cost about a tenth of a batch's time). PASSIVE never waits for readers or
// the writer; frames still needed by a reader are copied on a later round.
type checkpointer struct {
	db    *sql.DB
	kick  chan struct{}
	stop  chan struct{}
	ended chan struct{}
	once  sync.Once // Store.Close may run twice
}

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), ended: make(chan struct{})}
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
		_, _ = c.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		select {
		case <-time.After(checkpointGap):
		case <-c.stop:
			return
		}
	}
}

func (c *checkpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.ended
	return c.db.Close()
}
