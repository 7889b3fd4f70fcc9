//go:build !unix && !windows

package engine

import (
	"fmt"
	"runtime"
)

// lockDataDir refuses to run: the single-engine lock is an flock on Unix
// and LockFileEx on Windows, and the app ships for those only.
func lockDataDir(string) (*dirLock, error) {
	return nil, fmt.Errorf("data directory lock: not supported on %s (dtp-personal runs on Linux, other Unix systems and Windows)", runtime.GOOS)
}
