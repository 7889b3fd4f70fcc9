package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dtp-personal/engine"
	"dtp-personal/engine/store"
)

// A backup taken while events are being pushed opens, passes
// integrity_check and holds every event acknowledged before it started.
func TestBackupDuringAPushHoldsEveryAcknowledgedEvent(t *testing.T) {
	data := t.TempDir()
	const total = 4000
	_, ws, ctx := pushingServer(t, data, total)
	backup := filepath.Join(t.TempDir(), "backup.sqlite")
	var acked, before []string
	backedUp := make(chan error, 1)
	for len(acked) < total {
		_, frame, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msg []any
		if json.Unmarshal(frame, &msg) != nil || len(msg) != 4 || msg[0] != "OK" || msg[2] != true {
			t.Fatalf("unexpected answer %s", frame)
		}
		acked = append(acked, msg[1].(string))
		if len(acked) == 1000 {
			before = append(before, acked...)
			go func() { _, err := cliRun(t, data, "backup", backup); backedUp <- err }()
		}
	}
	if err := <-backedUp; err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(backup)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(); err != nil || res != "ok" {
		t.Fatalf("integrity_check of the backup: %q %v", res, err)
	}
	for _, id := range before {
		if ok, err := st.Has(id); err != nil || !ok {
			t.Fatalf("event %s was acknowledged before the backup but is not in it", id)
		}
	}
	if out, err := cliRun(t, data, "db", "check"); err != nil || out != "ok\n" {
		t.Fatalf("db check of the running server's database: %q %v", out, err)
	}
}

// A damaged database stops the start with a message naming the file and
// what to do; the file is left byte for byte as it was.
func TestDamagedDatabaseStopsTheStartAndIsLeftAsItIs(t *testing.T) {
	data := t.TempDir()
	if _, err := cliRun(t, data, "relays", "add", "wss://relay.example"); err != nil {
		t.Fatal(err)
	}
	path := engine.DatabasePath(data)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[4096:3*4096], bytes.Repeat([]byte{0x5a}, 2*4096)) // pages 2 and 3
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--headless", "--data", data, "--listen", freeAddr(t))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("serve started on a damaged database")
	}
	if err == nil || !strings.Contains(stderr.String(), path) || !strings.Contains(stderr.String(), "restore a backup") {
		t.Fatalf("serve on a damaged database: %v\n%s", err, stderr.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
		t.Fatal("the damaged file was changed")
	}
	if out, err := cliRun(t, data, "db", "check"); err == nil {
		t.Fatalf("db check found no damage: %q", out)
	}
}

// db check refuses a zero-length dtp.db (a restore copy that failed) and
// leaves it as it is; it used to give it a fresh schema and say ok.
func TestDBCheckRefusesAnEmptyFile(t *testing.T) {
	data := t.TempDir()
	path := engine.DatabasePath(data)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := cliRun(t, data, "db", "check")
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is empty") {
		t.Fatalf("db check of an empty file: %q %v", out, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Fatalf("the empty file was changed: %v %v", fi, err)
	}
}
