package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// DefaultDataDir is the platform's user data directory for the product:
// %AppData%\dtp-personal on Windows, ~/Library/Application
// Support/dtp-personal on macOS, else $XDG_DATA_HOME/dtp-personal or
// ~/.local/share/dtp-personal.
func DefaultDataDir() string {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		if d, err := os.UserConfigDir(); err == nil {
			return filepath.Join(d, "dtp-personal")
		}
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "dtp-personal")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "dtp-personal-data"
	}
	return filepath.Join(home, ".local", "share", "dtp-personal")
}

// DatabasePath is the SQLite file inside a data directory.
func DatabasePath(dataDir string) string { return filepath.Join(dataDir, "dtp.db") }

// ErrAlreadyRunning means another engine holds the data directory.
var ErrAlreadyRunning = errors.New("an engine is already running on this data directory")

// dirLock is the single-engine lock of a data directory, held for the
// engine's lifetime (lockDataDir is per platform: datadir_unix.go).
type dirLock struct{ f *os.File }

// release drops the lock: closing the only descriptor of the lock file ends
// its flock. A read-only engine holds none (nil).
func (l *dirLock) release() {
	if l != nil {
		l.f.Close()
	}
}

// lockWait is how long Open waits for a data directory's lock that another
// process holds before it reports ErrAlreadyRunning. FindRunning takes the
// lock for a moment to see whether a server holds it, so a server started
// just then (systemd restarting it beside a monitoring script's `status`)
// would otherwise exit; an engine holds it for its lifetime, so a second
// server still refuses, this much later.
const lockWait = 500 * time.Millisecond

// lockDataDirWaiting is lockDataDir, tried again for up to lockWait while
// another holds the lock.
func lockDataDirWaiting(dataDir string) (*dirLock, error) {
	deadline := time.Now().Add(lockWait)
	for {
		l, err := lockDataDir(dataDir)
		if !errors.Is(err, ErrAlreadyRunning) || time.Now().After(deadline) {
			return l, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Running describes the engine that holds a data directory, so that CLI
// commands can reach it.
type Running struct {
	PID    int    `json:"pid"`
	Listen string `json:"listen"` // the address actually bound
	// Token, sent as "Authorization: Bearer <token>" on the WebSocket
	// upgrade, shows the server a connection from the data directory's owner
	// (this file is theirs alone, mode 0600): an import over it is not held
	// to the per-connection push rate meant for clients we do not know.
	Token string `json:"token"`
}

// Base is the running server's HTTP address.
func (r Running) Base() string { return "http://" + r.Listen }

func runningPath(dataDir string) string { return filepath.Join(dataDir, "running.json") }

func writeRunning(dataDir string, r Running) error {
	b, _ := json.Marshal(r)
	tmp := runningPath(dataDir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, runningPath(dataDir))
}

// FindRunning returns the engine running on dataDir, if one holds its lock.
func FindRunning(dataDir string) (Running, bool) {
	l, err := lockDataDir(dataDir)
	if err == nil {
		l.release()
		return Running{}, false
	}
	if !errors.Is(err, ErrAlreadyRunning) {
		return Running{}, false
	}
	b, err := os.ReadFile(runningPath(dataDir))
	var r Running
	if err != nil || json.Unmarshal(b, &r) != nil || r.Listen == "" {
		return Running{}, false
	}
	return r, true
}
