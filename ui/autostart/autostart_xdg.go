// Package autostart turns "start at login" on and off for the XDG desktops
// (Linux, BSD): a desktop entry in $XDG_CONFIG_HOME/autostart is started by
// the session manager at login. It has no GUI dependency so the engine or the
// CLI can use it too.
package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the autostart entry's file name.
const FileName = "dtp-personal.desktop"

// Path is where the autostart entry lives: $XDG_CONFIG_HOME/autostart, or
// ~/.config/autostart when XDG_CONFIG_HOME is unset or relative (the XDG base
// directory spec says relative values are to be ignored).
func Path() (string, error) {
	base := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("autostart: no config directory: %w", err)
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "autostart", FileName), nil
}

// Enable writes the autostart entry. command is the program (an absolute
// path, as the session manager's PATH may differ) followed by its arguments.
func Enable(command []string) error {
	if len(command) == 0 || !filepath.IsAbs(command[0]) {
		return errors.New("autostart: the command must start with an absolute program path")
	}
	path, err := Path()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	// Write then rename, so a session starting meanwhile never reads half a file.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dtp-personal-*.desktop")
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(Entry(command)); err != nil {
		tmp.Close()
		return fmt.Errorf("autostart: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Disable removes the autostart entry; it is not an error if there is none.
func Disable() error {
	path, err := Path()
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Enabled reports whether the autostart entry exists.
func Enabled() (bool, error) {
	path, err := Path()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("autostart: %w", err)
}

// Entry is the desktop entry text that starts command at login.
func Entry(command []string) string {
	args := make([]string, len(command))
	for i, arg := range command {
		args[i] = quoteExecArg(arg)
	}
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=DTP Personal Server\n" +
		"Comment=Local copy of your Nostr web of trust\n" +
		"Exec=" + strings.Join(args, " ") + "\n" +
		"Icon=org.dtp.personal\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// quoteExecArg quotes one Exec argument by the desktop entry spec: arguments
// with reserved characters go in double quotes with " ` $ \ backslash-escaped;
// the Exec value is then a string value, where every backslash is escaped
// again. A literal % is written %% so it is not taken for a field code.
func quoteExecArg(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if arg != "" && !strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`=") {
		return arg
	}
	var quoted strings.Builder
	quoted.WriteByte('"')
	for _, r := range arg {
		if strings.ContainsRune("\"`$\\", r) {
			quoted.WriteByte('\\')
		}
		quoted.WriteRune(r)
	}
	quoted.WriteByte('"')
	return strings.ReplaceAll(quoted.String(), `\`, `\\`)
}
