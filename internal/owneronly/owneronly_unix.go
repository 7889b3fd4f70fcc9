//go:build !windows

package owneronly

import "os"

// MkdirAll creates dir and any missing parents; those it creates only the
// user may enter. An existing directory keeps its mode: the files in it are
// created 0600 (SQLite gives the WAL and shared-memory files the
// database's mode).
func MkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }

// Create creates a new, empty file at path that only the user can read; it
// fails if path exists.
func Create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}
