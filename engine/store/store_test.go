package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

func TestConnectionSettings(t *testing.T) {
	s, _ := openTemp(t)
	for _, c := range []struct {
		db     *sql.DB
		pragma string
		want   string
	}{
		{s.w, "journal_mode", "wal"},
		{s.w, "synchronous", "2"}, // FULL
		{s.w, "foreign_keys", "1"},
		{s.w, "busy_timeout", strconv.Itoa(busyTimeoutMillis)},
		{s.r, "journal_mode", "wal"},
		{s.r, "synchronous", "2"},
		{s.r, "query_only", "1"},
	} {
		var got string
		if err := c.db.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %s, want %s", c.pragma, got, c.want)
		}
	}
	if _, err := s.r.Exec(`INSERT INTO settings (key, value) VALUES ('k', 'v')`); err == nil {
		t.Error("the read pool accepted a write")
	}
}

func TestMigrationsIdempotentOnReopen(t *testing.T) {
	s, path := openTemp(t)
	ev := trustEvent(hex64("alice"), hex64("bob"), "1", 100)
	save(t, s, ev)
	if err := setSetting(s, "k", "v"); err != nil {
		t.Fatal(err)
	}
	rev := revision(t, s)
	s.Close()

	for i := 0; i < 2; i++ {
		s2, err := Open(path)
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		var version int
		if err := s2.w.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
			t.Fatalf("user_version = %d (err %v), want %d", version, err, len(migrations))
		}
		mustHave(t, s2, ev.ID, true)
		if v, ok, _ := s2.Setting("k"); !ok || v != "v" {
			t.Fatalf("setting lost on reopen: %q %v", v, ok)
		}
		if r := revision(t, s2); r != rev {
			t.Fatalf("revision %d after reopen, want %d", r, rev)
		}
		// The slot survives too: an older statement is still superseded.
		if r := save(t, s2, trustEvent(hex64("alice"), hex64("bob"), "-1", 50))[0]; r.Outcome != Superseded {
			t.Fatalf("after reopen older statement: %+v", r)
		}
		s2.Close()
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	s, path := openTemp(t)
	if _, err := s.w.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s2, err := Open(path); err == nil {
		s2.Close()
		t.Fatal("Open accepted a schema newer than the program")
	}
}

// Two processes starting on a fresh file at once must both come up with the
// schema applied exactly once.
func TestConcurrentOpenOfFreshFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fresh.sqlite")
	var wg sync.WaitGroup
	stores := make([]*Store, 4)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(path)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	if err := addRoot(stores[0], hex64("root")); err != nil {
		t.Fatal(err)
	}
	if roots, _ := stores[3].Roots(); len(roots) != 1 {
		t.Fatalf("roots seen by another store: %v", roots)
	}
}

func TestIntegrityCheck(t *testing.T) {
	s, _ := openTemp(t)
	save(t, s, trustEvent(hex64("alice"), hex64("bob"), "1", 100), mkEvent(1, hex64("a"), 1))
	got, err := s.IntegrityCheck()
	if err != nil || got != "ok" {
		t.Fatalf("IntegrityCheck = %q, err %v", got, err)
	}
}

// crashBatch deterministically rebuilds batch n of the crash child, so the
// parent can check every event of every batch the child reported committed.
func crashBatch(n int) []*nostr.Event {
	author := hex64("crash author")
	evs := make([]*nostr.Event, 100)
	for i := range evs {
		subject := hex64("subject", n, i)
		evs[i] = mkEventContent(fmt.Sprint("crash ", n, " ", i), 32009, author, int64(1_700_000_000+n),
			nostr.Tag{"d", "p:" + subject}, nostr.Tag{"p", subject}, nostr.Tag{"v", "1"}, nostr.Tag{"s", "x.com"})
	}
	return evs
}

const crashEnv = "DTP_STORE_CRASH_DB"

// TestCrashChild is the child half of TestCrashDurability: it writes batches
// forever and reports each one after SaveBatch returned (= committed).
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("runs only as the child of TestCrashDurability")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Println("open error:", err)
		os.Exit(2)
	}
	for n := 0; ; n++ {
		evs := crashBatch(n)
		if _, err := s.SaveBatch(evs); err != nil {
			fmt.Println("save error:", err)
			os.Exit(2)
		}
		fmt.Printf("committed %d %s\n", n, evs[len(evs)-1].ID)
	}
}

func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	path := filepath.Join(t.TempDir(), "crash.sqlite")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	committed := map[int]string{}
	lines := bufio.NewScanner(stdout)
	killed := false
	deadline := time.Now().Add(30 * time.Second)
	for lines.Scan() {
		var n int
		var lastID string
		if _, err := fmt.Sscanf(lines.Text(), "committed %d %s", &n, &lastID); err != nil {
			t.Logf("child: %s", lines.Text())
			continue
		}
		committed[n] = lastID
		// Kill mid-stream: the child is busy writing the next batch.
		if !killed && (len(committed) == 30 || time.Now().After(deadline)) {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child ended before it was killed: %v", err)
	}
	if len(committed) < 30 {
		t.Fatalf("only %d batches reported", len(committed))
	}

	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer s.Close()
	if got, err := s.IntegrityCheck(); err != nil || got != "ok" {
		t.Fatalf("IntegrityCheck after SIGKILL = %q, err %v", got, err)
	}
	for n, lastID := range committed {
		evs := crashBatch(n)
		if evs[len(evs)-1].ID != lastID {
			t.Fatalf("batch %d: child's last id %s differs from the rebuilt one", n, lastID[:8])
		}
		for _, ev := range evs {
			mustHave(t, s, ev.ID, true)
		}
	}
	// A batch is atomic: the store holds whole batches only.
	total, err := s.Count(context.Background(), nostr.Filter{Kinds: []int{32009}})
	if err != nil || total%100 != 0 || total < int64(100*len(committed)) {
		t.Fatalf("%d events after crash (err %v) for %d reported batches of 100", total, err, len(committed))
	}
	t.Logf("%d batches reported before SIGKILL, %d events held", len(committed), total)
}
