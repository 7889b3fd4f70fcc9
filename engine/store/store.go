// Package store keeps events, slot winners, settings, relays, roots, relay
// health (per sync profile) and sync cursors in one SQLite file (modernc.org/sqlite, WAL,
// synchronous=FULL). All writes go through a single connection; reads use a
// separate query-only pool. Several processes may open the same file: a
// running server and a CLI command share it, and Revision tells the server
// that configuration changed underneath it.
package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// busyTimeoutMillis bounds how long a connection waits for another process's
// write lock before failing with SQLITE_BUSY.
const busyTimeoutMillis = 10000

// readPoolSize is the number of concurrent read connections.
const readPoolSize = 4

// Store is the database handle. It is safe for concurrent use.
type Store struct {
	w     *sql.DB // exactly one connection: every write is serialised through it
	r     *sql.DB // query_only pool
	stmts writeStmts
	ckpt  *checkpointer
	path  string
	full  atomic.Bool // the last write failed with SQLITE_FULL (see Full)
	// checked is closed once StartCheck's check ended, with checkErr its
	// finding; nil when no check was started
	checked  chan struct{}
	checkErr error
	// checkedAt is when the start-up check last passed, the mark's word
	// when it was skipped (unix seconds, 0: none); markOnClose leaves a
	// mark at Close (StartCheck of a start that may write)
	checkedAt   int64
	markOnClose bool
}

// Open opens (creating if needed) the database at path and applies pending
// schema migrations.
func Open(path string) (*Store, error) {
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("store: unusable database path %q", path)
	}
	// before the writer connects: its pragmas would already change a
	// foreign file
	if err := checkFile(path); err != nil {
		return nil, err
	}
	// Every connection gets the same durability settings. _txlock=immediate
	// makes each write transaction take the write lock at BEGIN, so two
	// processes never deadlock upgrading read locks.
	common := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)", busyTimeoutMillis)
	// WAL is a property of the file, set by the writer before any reader
	// connects; readers then never need the lock that switching takes.
	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=journal_mode(WAL)&_pragma=cache_size(-32768)&_pragma=temp_store(memory)&_pragma=wal_autocheckpoint(0)"+
		fmt.Sprintf("&_pragma=journal_size_limit(%d)", DefaultWALLimit)+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := migrate(w); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: migrate %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(readPoolSize)
	r.SetMaxIdleConns(readPoolSize)
	ck, err := sql.Open("sqlite", path+"?"+common)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("store: open %s for checkpoints: %w", path, err)
	}
	ck.SetMaxOpenConns(1)
	s := &Store{w: w, r: r, ckpt: startCheckpointer(ck, w, path+"-wal"), path: path}
	if err := s.stmts.prepare(w); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: prepare statements: %w", err)
	}
	return s, nil
}

// Close releases the pools. The last connection to close checkpoints the WAL.
func (s *Store) Close() error {
	s.stmts.close()
	err := errors.Join(s.ckpt.close(), s.r.Close(), s.w.Close())
	if s.markOnClose && err == nil && s.checkPassed() {
		writeMark(s.path, s.checkedAt)
		s.markOnClose = false // a second Close marks nothing anew
	}
	return err
}

// writeTx runs fn inside one write transaction, committing when fn returns
// nil, once the start-up check passed (StartCheck). The log is kept under
// its bound first (checkpointer.guard).
func (s *Store) writeTx(fn func(tx *sql.Tx) error) error {
	if err := s.Checked(); err != nil {
		return err
	}
	s.ckpt.guard()
	tx, err := s.w.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		s.noteFull(err)
		return err
	}
	if err := tx.Commit(); err != nil {
		s.noteFull(err)
		return err
	}
	s.full.Store(false)
	s.ckpt.committed()
	return nil
}

// noteFull remembers a failure for lack of space; other errors say nothing
// about space.
func (s *Store) noteFull(err error) {
	if IsFull(err) {
		s.full.Store(true)
	}
}
