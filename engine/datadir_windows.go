//go:build windows

package engine

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockDataDir takes an exclusive lock on the first byte of the data
// directory's engine.lock (LockFileEx). Windows releases it when the handle
// closes, also when the process is killed, so a crash never leaves a stale
// lock.
func lockDataDir(dataDir string) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dataDir, "engine.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY,
		0, 1, 0, new(windows.Overlapped))
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, ErrAlreadyRunning
		}
		return nil, err
	}
	return &dirLock{f: f}, nil
}
