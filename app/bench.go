package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"dtp-personal/app/scalebench"
)

// strfryEnv names a strfry executable for `bench` (else strfry on PATH).
const strfryEnv = "DTP_BENCH_STRFRY"

func cmdBench(c *cli) error {
	authors := c.fs.Int("authors", 10000, "W: authors in the generated web (about 12 events each)")
	seed := c.fs.Int("seed", 1, "the web's seed")
	relay := c.fs.String("relay", "auto", "auto (strfry when found, else dtp-personal) | strfry | dtp-personal")
	strfry := c.fs.String("strfry", "", "the strfry executable (default $"+strfryEnv+", else strfry on PATH)")
	noReference := c.fs.Bool("no-reference", false, "skip timing `strfry sync --dir down` as the reference rate")
	noPush := c.fs.Bool("no-push", false, "skip timing a fresh server taking the web's events pushed over WebSockets")
	cache := c.fs.String("cache", "", "where generated webs are kept (default: the user cache directory; \"none\": not kept)")
	work := c.fs.String("work", "", "parent of the run's temporary data directories (default: the system's)")
	keep := c.fs.Bool("keep", false, "keep the run's data directories and logs")
	resolves := c.fs.Int("resolves", 2000, "warm RESOLVEs for p50/p99")
	asJSON := c.fs.Bool("json", false, "print the figures as JSON")
	rest := c.fs.String("rest", "", "time only the restart and the questions on DIR, the `sync` data directory a --keep run left (same --authors and --seed)")
	if err := c.parse(0); err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	cfg := scalebench.Config{Binary: bin, Authors: *authors, Seed: *seed, WorkDir: *work, Keep: *keep,
		Reference: !*noReference, Push: !*noPush, Resolves: max(*resolves, 1), Log: os.Stderr, Rest: *rest}
	if cfg.Strfry, err = findStrfry(*relay, *strfry); err != nil {
		return err
	}
	switch *cache {
	case "none":
	case "":
		if dir, err := os.UserCacheDir(); err == nil {
			cfg.CacheDir = filepath.Join(dir, "dtp-personal", "bench")
		}
	default:
		cfg.CacheDir = *cache
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := scalebench.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if *asJSON {
		return printJSON(res)
	}
	res.Print(os.Stdout)
	return nil
}

// findStrfry picks the relay: the strfry executable to use, or "" for a
// second dtp-personal server.
func findStrfry(relay, path string) (string, error) {
	if relay == "dtp-personal" {
		return "", nil
	}
	if relay != "auto" && relay != "strfry" {
		return "", fmt.Errorf("%w: --relay is auto, strfry or dtp-personal, not %q", errUsage, relay)
	}
	if path == "" {
		path = os.Getenv(strfryEnv)
	}
	if path == "" {
		path = "strfry"
	}
	found, err := exec.LookPath(path)
	switch {
	case err == nil:
		return found, nil
	case relay == "strfry":
		return "", fmt.Errorf("bench: no strfry at %q (set --strfry or $%s): %w", path, strfryEnv, err)
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist):
		return "", nil
	default:
		return "", err
	}
}
