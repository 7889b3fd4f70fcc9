package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
)

// sqliteFull is SQLITE_FULL: the disk, or the page cap, allows no more pages.
const sqliteFull = 13

// IsFull reports whether err is SQLite's "database or disk is full".
func IsFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqliteFull
}

// Full reports whether the last write transaction failed for lack of space;
// the next one that commits clears it.
func (s *Store) Full() bool { return s.full.Load() }

// probeBytes is the size of ProbeWrite's write: a few pages, about what a
// small batch of events needs.
const probeBytes = 32 << 10

// ProbeWrite commits a write of probeBytes that leaves no data behind, to
// learn whether space returned while nothing else is written.
func (s *Store) ProbeWrite() error {
	return s.writeTx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO state (key, value) VALUES ('writeProbe', ?)`, strings.Repeat(" ", probeBytes)); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM state WHERE key = 'writeProbe'`)
		return err
	})
}

// CapPages sets SQLite's max_page_count on the writer and returns the cap in
// force: never below the file's current size, so CapPages(1) freezes it. It
// is a size quota, and how tests fill the "disk" for real.
func (s *Store) CapPages(n int64) (int64, error) {
	var got int64
	// PRAGMA takes no bound parameters; n is an integer
	if err := s.w.QueryRow(fmt.Sprintf("PRAGMA max_page_count = %d", n)).Scan(&got); err != nil {
		return 0, fmt.Errorf("store: cap pages: %w", err)
	}
	return got, nil
}
