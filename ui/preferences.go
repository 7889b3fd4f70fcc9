package ui

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
)

// repairPreferences replaces Fyne's preferences file for the app when it is
// there but not a JSON object (left empty by a save cut short): Fyne then
// logs "Preferences load error: EOF" at every start and, as the app keeps no
// preferences of its own that change, never writes it again. dir is Fyne's
// config root (os.UserConfigDir()/fyne on XDG desktops).
func repairPreferences(dir string) {
	path := filepath.Join(dir, AppID, "preferences.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return // none yet, or unreadable: Fyne says so itself
	}
	var values map[string]any
	if json.Unmarshal(b, &values) == nil {
		return
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		slog.Warn("repair the damaged preferences file", "path", path, "err", err)
		return
	}
	slog.Info("replaced a damaged preferences file", "path", path, "bytes", len(b))
}

// fyneConfigDir is where Fyne keeps an app's preferences on XDG desktops.
func fyneConfigDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fyne")
}
