package engine

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

func openQuiet(t *testing.T, dataDir string) *Engine {
	t.Helper()
	eng, err := Open(Options{DataDir: dataDir, Listen: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// TestCloseWhileServing closes a busy engine (events arriving, a status
// subscriber) without first ending Serve's context: Serve returns, the
// database is intact and holds what was accepted, and the data directory
// opens again.
func TestCloseWhileServing(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	eng := openQuiet(t, data)
	served := make(chan error, 1)
	go func() { served <- eng.Serve(context.Background()) }()
	testutil.Eventually(t, "listening", func() bool { return eng.ListenAddr() != "" })

	var snapshots atomic.Int64
	eng.Subscribe(func(status.Snapshot) { snapshots.Add(1) })
	root := fixture.NewAuthor(1)
	var accepted atomic.Int64
	pushing := make(chan struct{})
	go func() {
		defer close(pushing)
		for i := 2; ; i++ {
			ev := root.Trust(fixture.P(fixture.NewAuthor(i).Pubkey), "1", 1_700_000_000)
			r, err := eng.Submit(context.Background(), ev, "test")
			if err != nil {
				return // the pipeline closed
			}
			if r.OK() {
				accepted.Add(1)
			}
		}
	}()
	testutil.Eventually(t, "events and a snapshot", func() bool { return accepted.Load() >= 20 && snapshots.Load() > 0 })

	start := time.Now()
	if err := eng.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Serve still running after Close returned")
	}
	<-pushing
	if err := eng.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := eng.Serve(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Serve after Close = %v, want ErrClosed", err)
	}

	again := openQuiet(t, data)
	defer again.Close()
	if report, err := again.store.IntegrityCheck(); err != nil || report != "ok" {
		t.Fatalf("integrity check: %q %v", report, err)
	}
	n, err := again.store.Count(context.Background(), nostr.Filter{Authors: []string{root.Pubkey}})
	if err != nil || n < accepted.Load() {
		t.Fatalf("%d events stored after reopen (%v), want at least the %d accepted", n, err, accepted.Load())
	}
}

// TestCloseWithoutServe closes an engine that never served, twice.
func TestCloseWithoutServe(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	eng := openQuiet(t, data)
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	openQuiet(t, data).Close() // the data directory was released
}

// TestDataDirLockHoldsUntilClose: a second engine on a data directory is
// refused while the first holds its lock, and opens once the first closed.
func TestDataDirLockHoldsUntilClose(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	first := openQuiet(t, data)
	if _, err := Open(Options{DataDir: data, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second open while the first runs: %v, want ErrAlreadyRunning", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := openQuiet(t, data)
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadOnlyEngineTakesNoLock: a read-only engine (status, resolve with no
// server) opens beside the engine holding the directory, and an engine
// opens beside it; it neither serves nor writes.
func TestReadOnlyEngineTakesNoLock(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	reader, err := Open(Options{DataDir: data, Logger: quiet, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	writer := openQuiet(t, data) // the reader holds no lock
	defer writer.Close()
	second, err := Open(Options{DataDir: data, Logger: quiet, ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open beside a writer: %v", err)
	}
	defer second.Close()
	if err := second.Serve(t.Context()); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Serve on a read-only engine: %v, want ErrReadOnly", err)
	}
	if _, err := second.Import(t.Context(), strings.NewReader(""), nil); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Import on a read-only engine: %v, want ErrReadOnly", err)
	}
	if key, ok, err := writer.store.State(stateAuthKey); err != nil || !ok || key == "" {
		t.Fatalf("the writer's NIP-42 key: %q %v %v", key, ok, err)
	}
}
