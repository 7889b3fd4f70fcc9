//go:build darwin

package autostart

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
)

// On macOS a launch agent in ~/Library/LaunchAgents is started by launchd
// at login (RunAtLoad); System Settings lists it under Login Items.

// Label is the launch agent's label, the app's ID.
const Label = "org.dtp.personal"

// Path is where the launch agent lives: ~/Library/LaunchAgents/Label.plist.
func Path() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: no home directory: %w", err)
	}
	return filepath.Join(home, "Library", "LaunchAgents", Label+".plist"), nil
}

// Entry is the launch agent's property list that starts command at login,
// once (no KeepAlive: Quit in the tray stays quit).
func Entry(command []string) string {
	var args strings.Builder
	for _, arg := range command {
		args.WriteString("\t\t<string>" + html.EscapeString(arg) + "</string>\n")
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + Label + `</string>
	<key>ProgramArguments</key>
	<array>
` + args.String() + `	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`
}
