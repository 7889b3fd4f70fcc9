package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// ourDatabase is a closed database of ours with some events, as bytes.
func ourDatabase(t *testing.T) []byte {
	t.Helper()
	s, path := openTemp(t)
	var evs []*nostr.Event
	for i := range 300 {
		evs = append(evs, trustEvent(hex64("a", i), hex64("b", i), "1", int64(1700000000+i)))
	}
	save(t, s, evs...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBadFilesAreRefusedAndLeftAsTheyAre(t *testing.T) {
	ours := ourDatabase(t)
	foreign := filepath.Join(t.TempDir(), "other.sqlite")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	foreignBytes, _ := os.ReadFile(foreign)
	corrupted := bytes.Clone(ours)
	for i := 3 * 4096; i < 5*4096; i++ { // pages 4 and 5: b-tree pages of the events
		corrupted[i] = 0x5a
	}
	for _, tc := range []struct {
		name, problem string
		content       []byte
	}{
		{"empty", "is empty (0 bytes)", []byte{}},
		{"text", "is not an SQLite database", []byte("hello, I am a text file\n")},
		{"header cut", "is truncated", ours[:60]},
		{"half", "is damaged", ours[:len(ours)/2]},
		{"foreign", "another program's SQLite database", foreignBytes},
		{"corrupted", "is damaged", corrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dtp.sqlite")
			if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(path)
			if err == nil {
				err = s.QuickCheck(context.Background())
				s.Close()
			}
			var bad *BadFileError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.problem) || !strings.Contains(err.Error(), path) {
				t.Fatalf("got %v, want a BadFileError naming the file and %q", err, tc.problem)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, tc.content) {
				t.Fatal("the bad file was changed")
			}
		})
	}
}

// A check started beside the start's reads holds every write back until it
// passed, and fails them all when it found damage, leaving the file as it
// is.
func TestWritesWaitForTheStartCheck(t *testing.T) {
	corrupted := ourDatabase(t)
	for i := 3 * 4096; i < 5*4096; i++ {
		corrupted[i] = 0x5a
	}
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	if err := os.WriteFile(path, corrupted, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.StartCheck(time.Minute, true)
	var bad *BadFileError
	if _, err := s.SaveBatch([]*nostr.Event{trustEvent(hex64("a"), hex64("b"), "1", 1700000000)}); !errors.As(err, &bad) {
		t.Fatalf("a write on a damaged file: %v", err)
	}
	if err := s.Checked(); !errors.As(err, &bad) {
		t.Fatalf("the check's finding: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, corrupted) {
		t.Fatal("the damaged file was changed")
	}

	good, _ := openTemp(t)
	good.StartCheck(time.Minute, true)
	save(t, good, trustEvent(hex64("a"), hex64("b"), "1", 1700000000))
	if err := good.Checked(); err != nil {
		t.Fatal(err)
	}
}

// A start skips the check only for a file its last clean close left as it
// is, checked within recheckEvery. Damage is made here the one way a mark
// cannot see (in place, keeping the file's size and time) to tell a start
// that checked from one that did not.
func TestCleanCloseLetsTheNextStartSkipItsCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	if err := os.WriteFile(path, ourDatabase(t), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func(writing bool) *Store {
		t.Helper()
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.StartCheck(time.Minute, writing)
		return s
	}
	closeClean := func(s *Store) {
		t.Helper()
		if err := errors.Join(s.Checked(), s.Close()); err != nil {
			t.Fatal(err)
		}
	}
	damageKeepingTime := func() (restore func()) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		good, _ := os.ReadFile(path)
		bad := bytes.Clone(good)
		for i := 3 * 4096; i < 5*4096; i++ {
			bad[i] = 0x5a
		}
		write := func(b []byte) {
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
		write(bad)
		return func() { write(good) }
	}
	var bad *BadFileError

	// a first start checks (no mark), and its clean close leaves one
	closeClean(start(true))
	if _, err := os.Stat(markPath(path)); err != nil {
		t.Fatalf("a clean close left no mark: %v", err)
	}

	// the mark stands: a reader's start and then a writer's skip the check
	restore := damageKeepingTime()
	reader := start(false)
	if reader.checked != nil {
		t.Fatal("a reader's start checked a file marked clean")
	}
	reader.Close()
	s := start(true)
	if s.checked != nil || s.Checked() != nil {
		t.Fatal("a start checked a file marked clean")
	}
	// a start that may write took the mark away: a kill now leaves none
	if _, err := os.Stat(markPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the mark stays while the store is open: %v", err)
	}
	s.markOnClose = false // as a kill would: no close marks the file
	s.Close()
	if err := start(true).Checked(); !errors.As(err, &bad) {
		t.Fatalf("a start after a kill did not check: %v", err)
	}

	// a mark of another time (a copy, another writer) is not taken
	restore()
	closeClean(start(true))
	damageKeepingTime()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if err := start(true).Checked(); !errors.As(err, &bad) {
		t.Fatalf("a start on a file changed since its mark did not check: %v", err)
	}

	// nor one whose check is older than recheckEvery
	restore()
	closeClean(start(true))
	m, matches := readMark(path)
	if !matches {
		t.Fatal("the clean close's mark does not match its file")
	}
	m.CheckedAt = time.Now().Add(-recheckEvery - time.Hour).Unix()
	b, _ := json.Marshal(m)
	if err := os.WriteFile(markPath(path), b, 0o600); err != nil {
		t.Fatal(err)
	}
	damageKeepingTime()
	if err := start(true).Checked(); !errors.As(err, &bad) {
		t.Fatalf("a start with a week-old check did not check: %v", err)
	}
}
