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
// reading it only: a truncated or foreign file must never become a new,
// empty database. A file of no bytes is what SQLite itself leaves before its
// first write, so it is taken as new.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	header := make([]byte, 100) // the SQLite file header
	n, err := io.ReadFull(f, header)
	f.Close()
	switch {
	case n == 0:
		return nil
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
