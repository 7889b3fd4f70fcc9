package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// BadFileError is a database file this program will not open: not SQLite,
// another program's database, or damaged. The file is left as it was.
type BadFileError struct {
	Path    string
	Problem string
}

func (e *BadFileError) Error() string {
	return fmt.Sprintf("database %s %s. The file was left as it is: restore a backup (see the README, "+
		"\"Backup and restore\") or move it aside to start with an empty database", e.Path, e.Problem)
}

// sqliteMagic starts every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// checkFile refuses an existing file that is not one of our databases,
// reading it only: a truncated, empty or foreign file must never become a
// new, empty database. A missing file is created here, so that the only
// empty file taken as new is one this open made.
func checkFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	if staysEmpty(path) {
		return &BadFileError{path, "is empty (0 bytes), not a database"}
	}
	f, err = os.Open(path)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	header := make([]byte, 100) // the SQLite file header
	n, err := io.ReadFull(f, header)
	f.Close()
	switch {
	case !bytes.HasPrefix(header[:n], sqliteMagic) && !bytes.HasPrefix(sqliteMagic, header[:n]):
		return &BadFileError{path, "is not an SQLite database"}
	case err != nil:
		return &BadFileError{path, fmt.Sprintf("is truncated (%d bytes, shorter than an SQLite header)", n)}
	}
	// busy_timeout: another process opening the same file (switching a
	// fresh one to WAL, migrating) locks it for a moment; locked is not damaged
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?mode=ro&_pragma=busy_timeout(%d)", path, busyTimeoutMillis))
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	defer db.Close()
	var version, objects int
	// one statement, one snapshot: another process may commit a migration
	// (tables and user_version together) between two; its switch to WAL
	// fails a reader at once, busy_timeout or not (retryingBusy)
	err = retryingBusy(func() error {
		return db.QueryRow("SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)").
			Scan(&version, &objects)
	})
	if err != nil {
		return &BadFileError{path, "is damaged: " + err.Error()}
	}
	if version == 0 && objects > 0 {
		return &BadFileError{path, "is another program's SQLite database"}
	}
	return nil
}

// emptyGrace is how long an empty file is watched before it is refused:
// another process that has just created it (a CLI command and the server's
// first start at once) writes its first page within milliseconds.
const emptyGrace = 2 * time.Second

// staysEmpty reports whether the file at path is empty and stays so for
// emptyGrace. A file that cannot be read is not called empty: the open that
// follows names that error.
func staysEmpty(path string) bool {
	deadline := time.Now().Add(emptyGrace)
	for {
		if fi, err := os.Stat(path); err != nil || fi.Size() > 0 {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// QuickCheck runs SQLite's quick_check until ctx ends, and returns a
// BadFileError when it finds damage. A check cut short by ctx found
// nothing: it is not evidence of damage.
func (s *Store) QuickCheck(ctx context.Context) error {
	report, err := s.check(ctx, "quick_check")
	switch {
	case ctx.Err() != nil:
		return nil
	case err != nil:
		return &BadFileError{s.path, "is damaged: " + err.Error()}
	case report != "ok":
		return &BadFileError{s.path, "is damaged (quick_check: " + strings.SplitN(report, "\n", 2)[0] + ")"}
	}
	return nil
}

// IntegrityCheck runs SQLite's integrity_check and returns its report, "ok"
// when the file is clean.
func (s *Store) IntegrityCheck() (string, error) {
	return s.check(context.Background(), "integrity_check")
}

// check runs a checking pragma and joins its report lines.
func (s *Store) check(ctx context.Context, pragma string) (string, error) {
	rows, err := s.r.QueryContext(ctx, "PRAGMA "+pragma)
	if err != nil {
		return "", fmt.Errorf("store: %s: %w", pragma, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", fmt.Errorf("store: %s: %w", pragma, err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store: %s: %w", pragma, err)
	}
	return strings.Join(lines, "\n"), nil
}

// StartCheck runs QuickCheck, for at most limit, beside whatever reads the
// store meanwhile; every write waits until it passed and fails with its
// error when it found damage (Checked). A start so checks a large file while
// it loads everything else instead of before. A file the last close left as
// it is now, checked within recheckEvery, is not checked again (closeMark).
// writing says this start may write: it then takes the mark away (a kill
// leaves none) and leaves a new one when it closes cleanly.
func (s *Store) StartCheck(limit time.Duration, writing bool) {
	now := time.Now()
	var skip bool
	var checkedAt int64
	if writing {
		s.markOnClose = true
		skip, checkedAt = takeMark(s.path, now)
	} else {
		m, matches := readMark(s.path)
		skip = m.stands(matches, now)
	}
	if skip {
		s.checkedAt = checkedAt
		return
	}
	s.checked = make(chan struct{})
	go func() {
		defer close(s.checked)
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		// a check cut short at limit counts as passed: it is all a start
		// does on a large file (`db check` reads it whole)
		if s.checkErr = s.QuickCheck(ctx); s.checkErr == nil {
			s.checkedAt = now.Unix()
		}
	}()
}

// CheckDone is closed once StartCheck's check has ended (at once when none
// was started): Checked then returns without waiting.
func (s *Store) CheckDone() <-chan struct{} {
	if s.checked == nil {
		return closedChan
	}
	return s.checked
}

// checkPassed reports whether the start-up check ended finding nothing, or
// was skipped.
func (s *Store) checkPassed() bool {
	select {
	case <-s.CheckDone():
		return s.checkErr == nil
	default:
		return false
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Checked waits for StartCheck's check and returns what it found (nil when
// none was started).
func (s *Store) Checked() error {
	if s.checked == nil {
		return nil
	}
	<-s.checked
	return s.checkErr
}
