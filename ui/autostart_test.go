package ui

import (
	"dtp-personal/engine/settings"
	"dtp-personal/ui/autostart"
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

	if err := eng.Modify(settings.SetStartAtLogin(true)); err != nil {
		t.Fatal(err)
	}
	if !fake.current().StartAtLogin {
		t.Fatal("the engine did not record start at login")
	}
	body, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(body), "Exec=/opt/dtp/dtp-personal --data /srv/dtp\n") {
		t.Fatalf("autostart entry = %q, %v", body, err)
	}
	if err := eng.Modify(settings.SetStartAtLogin(false)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("entry still there after turning start at login off: %v", err)
	}
	if fake.current().StartAtLogin {
		t.Fatal("the engine still records start at login")
	}

	// A desktop entry that cannot be written leaves the engine's setting alone.
	bad := WithAutostart(fake, []string{"relative/dtp-personal"})
	if err := bad.Modify(settings.SetStartAtLogin(true)); err == nil {
		t.Fatal("start at login turned on with a relative program path")
	}
	if fake.current().StartAtLogin {
		t.Fatal("the engine recorded a choice the desktop lacks")
	}
	// Other commands pass through.
	if err := bad.SyncNow(); err != nil {
		t.Fatal(err)
	}
	assertCalls(t, fake, "SyncNow")
}

// An entry written or removed outside the app (the Windows installer, the
// user) is what happens at login: the setting follows it at start.
func TestFollowAutostartReadsTheEntry(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	fake := &fakeEngine{}
	if err := autostart.Enable([]string{"/opt/dtp/dtp-personal"}); err != nil {
		t.Fatal(err)
	}
	if err := FollowAutostart(fake); err != nil {
		t.Fatal(err)
	}
	if !fake.current().StartAtLogin {
		t.Fatal("an entry is there, but the setting says the app does not start at login")
	}
	if err := autostart.Disable(); err != nil {
		t.Fatal(err)
	}
	if err := FollowAutostart(fake); err != nil {
		t.Fatal(err)
	}
	if fake.current().StartAtLogin {
		t.Fatal("the entry is gone, but the setting says the app starts at login")
	}
}
