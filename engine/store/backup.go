package store

import (
	"errors"
	"fmt"
	"os"

	"dtp-personal/internal/owneronly"
)

// Backup writes a consistent snapshot of the database to path with VACUUM
// INTO: one read transaction, so writers go on meanwhile and the snapshot
// holds every event committed before it began. The file appears under its
// name only once complete; an existing file is never overwritten. It holds
// this process's writer meanwhile (query-only readers may not write the
// copy); other processes, such as a running server, keep writing. Only the
// user can read the copy (owneronly), wherever it is written.
func (s *Store) Backup(path string) error {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup: %s already exists; choose a new file name", path)
	}
	partial := path + ".partial"
	_ = os.Remove(partial) // left by an interrupted backup
	// VACUUM INTO writes into an existing empty file, which keeps the access
	// it was created with (SQLite would create it readable by all)
	f, err := owneronly.Create(partial)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	f.Close()
	if _, err := s.w.Exec("VACUUM INTO ?", partial); err != nil {
		_ = os.Remove(partial)
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	if err := os.Rename(partial, path); err != nil {
		_ = os.Remove(partial)
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}
