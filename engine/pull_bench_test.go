package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// pullFixture is a 100,000-event web of trust (1,641 frontier authors),
// signed once per process.
var pullFixture = sync.OnceValues(func() (fixture.Author, []*nostr.Event) {
	return fixture.WebOfTrust(100_000, 40, time.Now().Unix())
})

// BenchmarkPullThroughput is a first sync (`sync --once` into an empty data
// directory) of the benchmark web (see syncbench_test.go: the 100,000-event
// pull fixture, or DTP_BENCH_AUTHORS=100000 for 1.2 million events) from a
// relay in a second process on loopback: our own server, and strfry when
// found. In the same run it measures the push path on the same events (a
// fresh engine's server taking them over loopback WebSockets) and the
// verify and store ceilings. pull/push is the issue-26 figure (at least
// 0.7). Run with -benchtime 1x; -cpuprofile profiles this process (the
// client), the relay's CPU is printed.
func BenchmarkPullThroughput(b *testing.B) {
	web := loadBenchWeb(b)
	relays := benchRelays(b, web)
	pulls := map[string]pullFigures{}
	for range b.N {
		for _, r := range relays {
			pulls[r.kind] = firstSync(b, web, r)
		}
	}
	pushed := pushThroughput(b, web.events)
	push := pushed.rate
	b.Logf("push: %.0f ev/s, CPU per event %.1f µs (server and client)", push, 1e6*pushed.cpu)
	sample := web.events[:min(20000, len(web.events))]
	verify := verifyCeiling(b, sample).rate
	save := storeCeiling(b, sample).rate
	b.ReportMetric(push, "push-ev/s")
	b.ReportMetric(verify, "verify-ev/s")
	b.ReportMetric(save, "store-ev/s")
	for _, r := range relays {
		p := pulls[r.kind]
		b.Logf("%s: first sync of %d events (%s) in %s: %.0f ev/s, %.2f of push; CPU per event: client %.1f µs, relay %.1f µs",
			r.kind, p.events, p.outcome, p.elapsed.Round(time.Millisecond), p.rate(), p.rate()/push,
			1e6*p.clientCPU.Seconds()/float64(p.events), 1e6*p.relayCPU.Seconds()/float64(p.events))
		b.ReportMetric(p.rate(), r.kind+"-pull-ev/s")
		b.ReportMetric(p.rate()/push, r.kind+"-pull/push")
	}
}

// pullFigures are one first sync's.
type pullFigures struct {
	events              int64
	outcome             string // "complete", or what fell short
	elapsed             time.Duration
	clientCPU, relayCPU time.Duration
}

func (p pullFigures) rate() float64 { return float64(p.events) / p.elapsed.Seconds() }

// firstSync runs `sync --once` of web from r into a new data directory and
// checks it stored every event the frontier wants (web.wanted). A pass that
// falls short is reported, not fatal: the code before issue 26 did.
func firstSync(b *testing.B, web benchWeb, r *benchRelay) pullFigures {
	b.Helper()
	eng := openSyncClient(b, filepath.Join(b.TempDir(), "local"), web, r.url)
	defer eng.Close()
	stop := logProgress(b, eng, r.kind)
	stopProfile := profilePass(b, r.kind+" first sync")
	start, cpu0, relayCPU0 := time.Now(), testutil.ProcessCPU(b), r.cpu()
	cov, err := eng.SyncOnce(context.Background())
	p := pullFigures{elapsed: time.Since(start), clientCPU: testutil.ProcessCPU(b) - cpu0, relayCPU: r.cpu() - relayCPU0}
	stopProfile()
	stop()
	if err != nil {
		b.Fatalf("%s: pass: %v", r.kind, err)
	}
	p.events, p.outcome = eng.Status().Ingest.Accepted, cov.State
	if cov.State != status.StateComplete {
		p.outcome = fmt.Sprintf("partial: %v", cov.Reasons)
	}
	if p.events != int64(web.wanted) {
		p.outcome += fmt.Sprintf(", %d of the %d wanted", p.events, web.wanted)
	}
	return p
}

// logProgress logs the pass's progress every 10 s until stop is called.
func logProgress(b *testing.B, eng *Engine, kind string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				st := eng.Status()
				b.Logf("%s: %+v, %d stored", kind, st.Progress, st.Ingest.Accepted)
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// seededDataDir is a new data directory whose store holds evs.
func seededDataDir(b *testing.B, evs []*nostr.Event) string {
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
