//go:build unix

package engine

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockDataDir takes an flock on the data directory's engine.lock. The kernel
// releases it even when the process is killed, so a crash never leaves a
// stale lock.
func lockDataDir(dataDir string) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dataDir, "engine.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrAlreadyRunning
		}
		return nil, err
	}
	return &dirLock{f: f}, nil
}
