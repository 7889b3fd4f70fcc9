package store

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestBackupIsAWholeDatabaseAndNeverOverwrites(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.SetState("k", "v"); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "backup.sqlite")
	if err := s.Backup(dst); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(dst); err == nil {
		t.Fatal("a second backup overwrote the first")
	}
	// only the user may read it (on Windows an access list does that, which
	// the wine test checks)
	if fi, err := os.Stat(dst); runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o600) {
		t.Fatalf("backup mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	b, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if v, ok, err := b.State("k"); err != nil || !ok || v != "v" {
		t.Fatalf("backup holds %q %v %v", v, ok, err)
	}
	if report, err := b.IntegrityCheck(); err != nil || report != "ok" {
		t.Fatalf("backup integrity: %q %v", report, err)
	}
}
