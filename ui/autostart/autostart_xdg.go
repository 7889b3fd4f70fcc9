//go:build !windows && !darwin

package autostart

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// On the XDG desktops (Linux, BSD) a desktop entry in
// $XDG_CONFIG_HOME/autostart is started by the session manager at login.

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
