package engine

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// pullFixture is a 100,000-event web of trust (1,641 frontier authors),
// signed once per process.
var pullFixture = sync.OnceValues(func() (fixture.Author, []*nostr.Event) {
	return fixture.WebOfTrust(100_000, 40, time.Now().Unix())
})

// BenchmarkPullThroughput pulls a 100,000-event frontier from a second
// instance of our own server on loopback with one `sync --once` pass, and
// measures in the same run the ingest ceilings (verify pool, store) on the
// same events. Run with -benchtime 1x.
func BenchmarkPullThroughput(b *testing.B) {
	root, evs := pullFixture()
	_, remote := startEngine(b, Options{DataDir: seededDataDir(b, evs)})

	var pull float64
	for range b.N {
		eng := openPullClient(b, filepath.Join(b.TempDir(), "local"), root.Pubkey, remote)
		start := time.Now()
		cov, err := eng.SyncOnce(context.Background())
		elapsed := time.Since(start)
		if err != nil || cov.State != status.StateComplete {
			b.Fatalf("pass: %+v %v", cov, err)
		}
		stored := eng.Status().Ingest.Accepted
		eng.Close()
		if stored != int64(len(evs)) {
			b.Fatalf("pulled %d events, want %d", stored, len(evs))
		}
		pull = float64(stored) / elapsed.Seconds()
	}
	sample := evs[:20000]
	verify := verifyCeiling(b, sample).rate
	save := storeCeiling(b, sample).rate
	ingest := ingestCeiling(b, sample)
	b.ReportMetric(pull, "pull-ev/s")
	b.ReportMetric(ingest, "ingest-ev/s")
	b.ReportMetric(verify, "verify-ev/s")
	b.ReportMetric(save, "store-ev/s")
	b.ReportMetric(pull/ingest, "pull/ingest")
	b.ReportMetric(pull/min(verify, save), "pull/min-ceiling")
}

// seededDataDir is a new data directory whose store holds evs.
func seededDataDir(b testing.TB, evs []*nostr.Event) string {
	b.Helper()
	dir := b.TempDir()
	seed, err := store.Open(DatabasePath(dir))
	if err != nil {
		b.Fatal(err)
	}
	defer seed.Close()
	for i := 0; i < len(evs); i += 1000 {
		if _, err := seed.SaveBatch(evs[i:min(i+1000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// openPullClient opens an engine that syncs the pull fixture from remote.
// The fixture's authors write about 60 events each, so the frontier's total
// author cap is lowered to its size: the per-author cap (maxEvents /
// maxTotalAuthors) then keeps every event.
func openPullClient(b *testing.B, dataDir, root, remote string) *Engine {
	b.Helper()
	eng, err := Open(Options{DataDir: dataDir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	limits := settings.DefaultLimits()
	limits.MaxTotalAuthors = 2000
	for _, err := range []error{eng.Modify(settings.SetLimits(limits)), eng.Modify(settings.AddRoot(root)), eng.Modify(settings.AddRelay(remote))} {
		if err != nil {
			b.Fatal(err)
		}
	}
	return eng
}

// ingestCeiling is the whole pipeline's rate with no network: every event
// submitted straight into a fresh engine's ingest pipeline.
func ingestCeiling(b *testing.B, evs []*nostr.Event) float64 {
	eng, err := Open(Options{DataDir: b.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	start := time.Now()
	results, err := eng.ingest.SubmitAll(context.Background(), evs, "bench")
	if err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	for _, r := range results {
		if r.Outcome != ingest.Stored {
			b.Fatalf("ingest refused a fixture event: %s", r.Message)
		}
	}
	return float64(len(evs)) / elapsed.Seconds()
}
