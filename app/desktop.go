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
	opts := engine.Options{DataDir: c.data(), Listen: *c.listen, SyncAfter: windowReady, Serving: true}
	opts.Ingest.Workers = max(1, runtime.NumCPU()-1)
	eng, err := openEngine(opts)
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
	// once: the toolkit's return and stopWithoutTheToolkit may both ask,
	// and Serve's result is read once
	shutdown := sync.OnceValue(func() error {
		stop()
		return errors.Join(<-served, eng.Close())
	})
	guiDone := make(chan struct{})
	go stopWithoutTheToolkit(ctx, guiDone, shutdown)
	guiErr := runGUI(ctx, eng, c.data(), raiseListener(ctx, c.data()), ready, stop)
	close(guiDone)
	return errors.Join(guiErr, shutdown())
}

// toolkitStopWait is how long Quit waits for the toolkit to end its loop.
const toolkitStopWait = 10 * time.Second

// stopWithoutTheToolkit ends the process, once ctx ends (Quit, or a
// signal), if the toolkit has not returned (guiDone) within toolkitStopWait:
// the engine is shut down as runDesktop shuts it down, then the process
// exits. Under Wine the app once logged Quit and never returned from the
// toolkit's loop, leaving the tray icon and the data directory's lock
// behind; a user would find the app still "running".
func stopWithoutTheToolkit(ctx context.Context, guiDone <-chan struct{}, shutdown func() error) {
	<-ctx.Done()
	select {
	case <-guiDone:
		return
	case <-time.After(toolkitStopWait):
	}
	fmt.Fprintf(os.Stderr, "dtp-personal: the window did not close within %s of Quit; stopping without it\n", toolkitStopWait)
	if err := shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "dtp-personal:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
