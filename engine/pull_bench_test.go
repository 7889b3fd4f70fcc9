package engine

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// pullFixture is a 100,000-event web of trust: a root trusting 40 authors,
// each trusting 40 more (1,641 frontier authors), every author adding
// statements about X accounts until the total is reached. Signed once per
// process.
var pullFixture = sync.OnceValues(func() (fixture.Author, []*nostr.Event) {
	const total, fanout = 100_000, 40
	root := fixture.NewAuthor(0)
	authors := []fixture.Author{root}
	type edge struct{ from, to int }
	var edges []edge
	for i := range fanout {
		authors = append(authors, fixture.NewAuthor(1+i))
		edges = append(edges, edge{0, len(authors) - 1})
	}
	for i := range fanout {
		for j := range fanout {
			authors = append(authors, fixture.NewAuthor(1000+i*fanout+j))
			edges = append(edges, edge{1 + i, len(authors) - 1})
		}
	}
	evs := make([]*nostr.Event, total)
	now := time.Now().Unix()
	workers := runtime.NumCPU()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < total; i += workers {
				if i < len(edges) {
					e := edges[i]
					evs[i] = authors[e.from].Trust(fixture.P(authors[e.to].Pubkey), "1", now-int64(i%50000))
					continue
				}
				a := authors[i%len(authors)]
				evs[i] = a.Trust(fixture.XUser(strconv.Itoa(i)), "1", now-int64(i%50000), fixture.Scopes("x.com"))
			}
		})
	}
	wg.Wait()
	return root, evs
})

// BenchmarkPullThroughput pulls a 100,000-event frontier from a second
// instance of our own server on loopback with one `sync --once` pass, and
// measures in the same run the ingest ceilings (verify pool, store) on the
// same events. Run with -benchtime 1x.
func BenchmarkPullThroughput(b *testing.B) {
	root, evs := pullFixture()
	remoteDir := b.TempDir()
	seed, err := store.Open(DatabasePath(remoteDir))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(evs); i += 1000 {
		if _, err := seed.SaveBatch(evs[i:min(i+1000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	seed.Close()
	_, remote := startEngine(b, Options{DataDir: remoteDir})

	var pull float64
	for range b.N {
		eng, err := Open(Options{DataDir: filepath.Join(b.TempDir(), "local"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			b.Fatal(err)
		}
		if err := eng.AddRoot(root.Pubkey); err != nil {
			b.Fatal(err)
		}
		if err := eng.AddRelay(remote); err != nil {
			b.Fatal(err)
		}
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
	verify := verifyCeiling(sample)
	save := storeCeiling(b, sample)
	ceiling := min(verify, save)
	b.ReportMetric(pull, "pull-ev/s")
	b.ReportMetric(verify, "verify-ev/s")
	b.ReportMetric(save, "store-ev/s")
	b.ReportMetric(pull/ceiling, "pull/ceiling")
}
