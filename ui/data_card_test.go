package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Backup, export and import from the window do what the CLI's commands do,
// on a real engine: the export of one engine imported into another stores
// every event.
func TestDataCardBacksUpExportsAndImports(t *testing.T) {
	eng, _, _ := wotEngine(t)
	g := newEngineGUI(t, eng, tabSettings)
	g.render(eng.Status())
	d := g.settings.data
	if !strings.HasPrefix(d.where.Text, "Data directory: "+eng.DataDir()+" (") || !strings.Contains(d.about.Text, "never publishes") {
		t.Errorf("where %q, about %q", d.where.Text, d.about.Text)
	}
	dir := t.TempDir()
	exported := filepath.Join(dir, "events.jsonl")
	d.exportTo(exported)
	g.settle()
	if d.result.Text != "6 events exported to "+exported || d.err.text() != "" {
		t.Fatalf("export: %q, error %q", d.result.Text, d.err.text())
	}
	if b, err := os.ReadFile(exported); err != nil || strings.Count(string(b), "\n") != 6 {
		t.Fatalf("exported file: %d lines, %v", strings.Count(string(b), "\n"), err)
	}
	backup := filepath.Join(dir, "backup.db")
	d.backupTo(backup)
	g.settle()
	if info, err := os.Stat(backup); err != nil || info.Size() == 0 || d.result.Text != "Backup written to "+backup {
		t.Fatalf("backup: %v, %q", err, d.result.Text)
	}

	other := newEngineGUI(t, servedEngine(t), tabSettings)
	other.settings.data.importFrom(exported)
	other.settle()
	if got := other.settings.data.result.Text; got != "Imported 6 lines: 6 stored, 0 already here, 0 refused" {
		t.Errorf("import: %q, error %q", got, other.settings.data.err.text())
	}
	other.settings.data.importFrom(filepath.Join(dir, "missing.jsonl"))
	other.settle()
	if !strings.Contains(other.settings.data.err.text(), "Import: open") {
		t.Errorf("import of a missing file: error %q", other.settings.data.err.text())
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 999: "999 bytes", 1000: "1.0 kB", 12_345_678: "12.3 MB", 5_000_000_000: "5.0 GB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
