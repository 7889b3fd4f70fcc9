package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"dtp-personal/ui"
	"dtp-personal/ui/names"
)

// runGUI runs the tray app and its window over eng; main calls it when no
// subcommand is given. It returns when the app stops: after the user chooses
// Quit (quit is called first; it should stop the engine), when ctx ends, or
// when the desktop session ends the app. It fails at once with
// ui.ErrNoDisplay when there is no display. ready is called once the window
// has painted and built its pages.
func runGUI(ctx context.Context, eng ui.Engine, dataDir string, raise <-chan struct{}, ready, quit func()) error {
	spareUIProcs()
	var people ui.Names // nil: people show as npubs
	cache, err := names.Open(filepath.Join(dataDir, names.FileName), 0)
	if err != nil {
		slog.Warn("display names unavailable; people show as npubs", "err", err)
	} else {
		defer cache.Close()
		people = cache
	}
	if err := ui.FollowAutostart(eng); err != nil {
		slog.Warn("read whether the app starts at login", "err", err)
	}
	return ui.Run(ctx, ui.WithAutostart(eng, loginCommand()), ui.RunOptions{Names: people, Raise: raise, Version: versionName(), Ready: ready}, quit)
}

// spareUIProcs runs Go with two more Ps than the default (one per core),
// unless GOMAXPROCS is set. The UI thread leaves its P at every paint (a cgo
// call); during a sync the engine's CPU-bound work (one signature checker
// per core, the store, the sockets) takes every P meanwhile, and the UI
// thread waits in the global run queue, up to about 100 ms on two cores
// (BenchmarkGUILagDuringSync). With spare Ps it runs at once, and the OS
// scheduler, which favours a thread that has been waiting, shares the cores.
func spareUIProcs() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
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
