package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"dtp-personal/engine"
)

func cmdServe(c *cli) error {
	c.fs.Bool("headless", true, "run without GUI (the only mode of serve)")
	if err := c.parse(0); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	eng, err := openEngine(engine.Options{DataDir: c.data(), Listen: *c.listen, Logger: log, Serving: true})
	if err != nil {
		return err
	}
	serveErr := eng.Serve(ctx)
	closeErr := eng.Close()
	if serveErr != nil {
		return serveErr
	}
	if closeErr == nil {
		log.Info("stopped cleanly")
	}
	return closeErr
}
