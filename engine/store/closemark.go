package store

import (
	"encoding/json"
	"errors"
	"os"
	"time"
)

// A clean close leaves a mark beside the database: the file's size and
// modification time as that close left them, and when the start-up check
// last passed. The next start that finds the file as marked, checked within
// recheckEvery, skips the check (at 3 million events it held every write of
// the start back for 2 s while using a core); a kill, a crash or any other
// writer leaves no mark or a stale one, and a copied or damaged file has
// another time, so those starts check. A start that may write removes the
// mark first: a run that does not close leaves none.
type closeMark struct {
	Size      int64 `json:"size"`
	ModNanos  int64 `json:"modNanos"`
	CheckedAt int64 `json:"checkedAt"` // unix seconds; 0 when no check passed
}

// recheckEvery is how long a passed check stands for a file closed cleanly
// since: damage no writer of ours made (the disk, a bad copy in place)
// shows no other sign.
const recheckEvery = 7 * 24 * time.Hour

func markPath(dbPath string) string { return dbPath + "-closed" }

// readMark returns the mark left beside path, if any, and whether the file
// and its log are as it says.
func readMark(path string) (m closeMark, matches bool) {
	b, err := os.ReadFile(markPath(path))
	if err != nil || json.Unmarshal(b, &m) != nil {
		return closeMark{}, false
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != m.Size || fi.ModTime().UnixNano() != m.ModNanos || walHolds(path) {
		return m, false
	}
	return m, true
}

// walHolds reports whether a write-ahead log with frames lies beside path:
// frames no close copied into the file, which the mark does not cover.
func walHolds(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err == nil && fi.Size() > 0
}

// writeMark records the closed file at path as checked at checkedAt. Best
// effort: without a mark the next start checks.
func writeMark(path string, checkedAt int64) {
	if walHolds(path) {
		return
	}
	// stamped with a time of our own: a file system keeps write times in
	// clock ticks of milliseconds, so a write in the close's own tick would
	// leave the time as marked; it cannot leave it at this one
	now := time.Now()
	if os.Chtimes(path, now, now) != nil {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	b, _ := json.Marshal(closeMark{Size: fi.Size(), ModNanos: fi.ModTime().UnixNano(), CheckedAt: checkedAt})
	tmp := markPath(path) + ".tmp"
	if os.WriteFile(tmp, b, 0o600) != nil || os.Rename(tmp, markPath(path)) != nil {
		os.Remove(tmp)
	}
}

// takeMark removes the mark beside path and reports whether it lets this
// start skip its check, with when the check last passed. A mark that cannot
// be removed lets nothing be skipped: a kill later in this run would leave
// it standing.
func takeMark(path string, now time.Time) (skip bool, checkedAt int64) {
	m, matches := readMark(path)
	if err := os.Remove(markPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, 0
	}
	return m.stands(matches, now), m.CheckedAt
}

// stands reports whether a mark that matches its file still stands for the
// start-up check at now.
func (m closeMark) stands(matches bool, now time.Time) bool {
	return matches && m.CheckedAt > 0 && now.Sub(time.Unix(m.CheckedAt, 0)) <= recheckEvery
}
