package engine

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// A heap limit lowered on a running engine, from another process (the CLI's
// `limits` command), freezes the heap within seconds: no restart needed.
func TestLoweredHeapLimitFreezesRunningHeap(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	eng, url := startEngine(t, Options{DataDir: data})
	root := fixture.NewAuthor(1)
	c := dialRaw(t, url)
	for i := 2; i <= 4; i++ {
		if ok, msg := c.push(root.Trust(fixture.P(fixture.NewAuthor(i).Pubkey), "1", t0)); !ok {
			t.Fatalf("push refused: %s", msg)
		}
	}
	nodes := eng.Status().Heap.Nodes
	if nodes != 4 {
		t.Fatalf("heap holds %d nodes, want 4", nodes)
	}

	cli, err := store.Open(DatabasePath(data))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if err := lowerHeapNodeLimit(cli, nodes); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the running heap at its new node limit", func() bool {
		return eng.Status().Heap.NodeLimit == nodes
	})
	if ok, msg := c.push(root.Trust(fixture.P(fixture.NewAuthor(5).Pubkey), "1", t0)); !ok {
		t.Fatalf("push refused: %s", msg) // stored in the database all the same
	}
	h := eng.Status().Heap
	if h.Nodes != nodes || h.LimitReason != status.ReasonHeapNodeLimit {
		t.Fatalf("heap after a new node past the lowered limit: %+v", h)
	}
}

// A finished pass is a fact about the program, not a setting: it must not
// move the settings revision that every process watches.
func TestFinishedPassKeepsSettingsRevision(t *testing.T) {
	t.Parallel()
	eng, err := Open(Options{DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	before, err := eng.store.Revision()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := eng.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if eng.sync.Status().LastSync == 0 { // the runner's record: with no relays the status says never synced
		t.Fatal("the pass did not finish")
	}
	if after, err := eng.store.Revision(); err != nil || after != before {
		t.Fatalf("settings revision %d after a finished pass, was %d (%v)", after, before, err)
	}
}

func lowerHeapNodeLimit(st *store.Store, n int) error {
	return settings.Modify(st, func(s *settings.Settings) error {
		s.Limits.HeapNodeLimit = n
		return nil
	})
}
