//go:build !unix

package engine

import (
	"fmt"
	"runtime"
)

// lockDataDir refuses to run: the single-engine lock is an flock, and the
// app ships for Linux only.
func lockDataDir(string) (*dirLock, error) {
	return nil, fmt.Errorf("data directory lock: not supported on %s (dtp-personal runs on Linux and other Unix systems)", runtime.GOOS)
}
