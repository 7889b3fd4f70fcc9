package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"dtp-personal/engine"
)

// windowReadyWait is the longest the sync waits for the window at start.
const windowReadyWait = 5 * time.Second

// runDesktop starts the engine and the tray app in one process. Closing the
// window leaves the engine running in the tray; Quit stops both.
func runDesktop(c *cli) error {
	// one signature checker fewer than cores: a sync must not starve the
	// window's thread (BenchmarkGUILagDuringSync)
	// The sync waits for the window's first frames and pages (windowReady),
	// which would otherwise compete with its first burst of checks for the
	// cores; at most windowReadyWait, whatever the window does.
	windowReady := make(chan struct{})
	ready := sync.OnceFunc(func() { close(windowReady) })
	defer time.AfterFunc(windowReadyWait, ready).Stop()
	opts := engine.Options{DataDir: c.data(), Listen: *c.listen, SyncAfter: windowReady}
	opts.Ingest.Workers = max(1, runtime.NumCPU()-1)
	eng, err := engine.Open(opts)
	if errors.Is(err, engine.ErrAlreadyRunning) {
		if askToRaise(c.data()) == nil {
			fmt.Fprintln(os.Stderr, "dtp-personal is already running on", c.data()+": its window is brought up")
			return nil
		}
		if r, ok := engine.FindRunning(c.data()); ok {
			return fmt.Errorf("dtp-personal is already running on %s (pid %d, listening on %s); use its tray icon", c.data(), r.PID, r.Listen)
		}
		return fmt.Errorf("dtp-personal is already running on %s; use its tray icon", c.data())
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- eng.Serve(ctx) }()
	guiErr := runGUI(ctx, eng, c.data(), raiseListener(ctx, c.data()), ready, stop)
	stop()
	serveErr := <-served
	closeErr := eng.Close()
	return errors.Join(guiErr, serveErr, closeErr)
}
