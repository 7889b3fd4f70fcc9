package store

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// Recording a fact about the program is not a settings change: the revision
// every process watches stays where it was.
func TestStateLeavesRevisionAlone(t *testing.T) {
	s, _ := openTemp(t)
	if _, ok, err := s.State("lastPass"); err != nil || ok {
		t.Fatalf("unset state: ok %v err %v", ok, err)
	}
	r0 := revision(t, s)
	for _, v := range []string{"one", "two"} {
		if err := s.SetState("lastPass", v); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.State("lastPass"); err != nil || !ok || got != v {
			t.Fatalf("state = %q ok %v err %v, want %q", got, ok, err, v)
		}
	}
	if r := revision(t, s); r != r0 {
		t.Fatalf("writing state moved the revision %d -> %d", r0, r)
	}
}

// A database from before the state table keeps its NIP-42 key and last pass:
// migration 2 moves them out of settings, and leaves the settings alone.
func TestMigrationMovesStateOutOfSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], "PRAGMA user_version = 1",
		`INSERT INTO settings (key, value) VALUES ('authKey', 'k'), ('lastPass', '{"at":5}'), ('strategy', 'global-continuous')`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for key, want := range map[string]string{"authKey": "k", "lastPass": `{"at":5}`} {
		if v, ok, err := s.State(key); err != nil || !ok || v != want {
			t.Errorf("state %s = %q ok %v err %v, want %q", key, v, ok, err, want)
		}
		if _, ok, err := s.Setting(key); err != nil || ok {
			t.Errorf("setting %s still there (ok %v err %v)", key, ok, err)
		}
	}
	if v, _, _ := s.Setting("strategy"); v != "global-continuous" {
		t.Errorf("setting strategy = %q after the migration", v)
	}
}
