package main

import (
	"context"
	"os"

	"dtp-personal/ui"
)

// runGUI runs the tray app and its window over eng; main calls it when no
// subcommand is given. It returns when the app stops: after the user chooses
// Quit (quit is called first; it should stop the engine), when ctx ends, or
// when the desktop session ends the app. It fails at once with
// ui.ErrNoDisplay when there is no display.
func runGUI(ctx context.Context, eng ui.Engine, quit func()) error {
	return ui.Run(ctx, ui.WithAutostart(eng, loginCommand()), quit)
}

// loginCommand is how the autostart entry starts the app at login: this
// program, by absolute path, with the flags it was started with.
func loginCommand() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return append([]string{exe}, os.Args[1:]...)
}
