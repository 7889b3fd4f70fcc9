package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// DefaultDataDir is the platform's user data directory for the product
// ($XDG_DATA_HOME/dtp-personal, else ~/.local/share/dtp-personal).
func DefaultDataDir() string {
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

// dirLock is the single-engine lock of a data directory: an flock held for
// the engine's lifetime, released by the kernel even when the process is
// killed, so a crash never leaves a stale lock.
type dirLock struct{ f *os.File }

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

func (l *dirLock) release() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
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
