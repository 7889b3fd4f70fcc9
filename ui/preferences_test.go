package ui

import (
	"os"
	"path/filepath"
	"testing"
)

// An empty preferences file (a save cut short) is replaced by an empty
// object; a good one is left alone.
func TestRepairPreferences(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, AppID, "preferences.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	for content, want := range map[string]string{
		"":                  "{}\n",
		"{\"a\":":           "{}\n",
		"{\"theme\":\"x\"}": "{\"theme\":\"x\"}",
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		repairPreferences(dir)
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("preferences %q after repair = %q, want %q", content, got, want)
		}
	}
}
