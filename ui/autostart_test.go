package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithAutostartWritesEntryThenRecordsChoice(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	fake := &fakeEngine{}
	eng := WithAutostart(fake, []string{"/opt/dtp/dtp-personal", "--data", "/srv/dtp"})
	entry := filepath.Join(config, "autostart", "dtp-personal.desktop")

	if err := eng.SetStartAtLogin(true); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(body), "Exec=/opt/dtp/dtp-personal --data /srv/dtp\n") {
		t.Fatalf("autostart entry = %q, %v", body, err)
	}
	if err := eng.SetStartAtLogin(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("entry still there after turning start at login off: %v", err)
	}
	assertCalls(t, fake, "SetStartAtLogin true", "SetStartAtLogin false")

	// A desktop entry that cannot be written leaves the engine's setting alone.
	bad := WithAutostart(fake, []string{"relative/dtp-personal"})
	if err := bad.SetStartAtLogin(true); err == nil {
		t.Fatal("SetStartAtLogin succeeded with a relative program path")
	}
	assertCalls(t, fake, "SetStartAtLogin true", "SetStartAtLogin false")
	// Other commands pass through.
	if err := bad.SyncNow(); err != nil {
		t.Fatal(err)
	}
	assertCalls(t, fake, "SetStartAtLogin true", "SetStartAtLogin false", "SyncNow")
}
