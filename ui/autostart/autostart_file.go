//go:build !windows

package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Where the entry is a file (Path, with Entry's text): the XDG desktops and
// macOS.

// Enable writes the autostart entry. command is the program (an absolute
// path, as the session manager's PATH may differ) followed by its arguments.
func Enable(command []string) error {
	if len(command) == 0 || !filepath.IsAbs(command[0]) {
		return errors.New("autostart: the command must start with an absolute program path")
	}
	path, err := Path()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	// Write then rename, so a session starting meanwhile never reads half a file.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(Entry(command)); err != nil {
		tmp.Close()
		return fmt.Errorf("autostart: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Disable removes the autostart entry; it is not an error if there is none.
func Disable() error {
	path, err := Path()
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Enabled reports whether the autostart entry exists.
func Enabled() (bool, error) {
	path, err := Path()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("autostart: %w", err)
}
