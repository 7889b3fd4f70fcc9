package heap

import (
	"context"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/heap/heaptest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// refillWorld: a real store holding a's trust in b, c and d (in that order),
// and a heap built from it with room for one statement: b only.
func refillWorld(t *testing.T) (*store.Store, *Heap, map[string]*nostr.Event) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	evs := map[string]*nostr.Event{}
	for i, name := range []string{"b", "c", "d"} {
		evs[name] = heaptest.TrustEvent(validation.KindTrust, pk(1), 'p', pk(2+i), "1", "", nil, 10)
		if _, err := db.SaveBatch([]*nostr.Event{evs[name]}); err != nil {
			t.Fatal(err)
		}
	}
	h := New(edgeLimit(1))
	if _, err := h.Build(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if s := h.Stats(); s.Edges != 1 || s.LimitReason != status.ReasonHeapEdgeLimit {
		t.Fatalf("built under an edge limit of 1: %+v", s)
	}
	return db, h, evs
}

func edgeLimit(n int) settings.Limits {
	l := settings.DefaultLimits()
	l.HeapEdgeLimit = n
	return l
}

// A raised guardrail lets the statements it refused in from the store, on
// the running heap, and the limit reason goes.
func TestRefillTakesInWhatTheLimitRefused(t *testing.T) {
	db, h, _ := refillWorld(t)
	if c, err := h.Refill(context.Background(), db); err != nil || c.Applied != 0 {
		t.Fatalf("a refill with the limit unchanged: %+v, %v", c, err)
	}
	h.SetLimits(edgeLimit(100))
	c, err := h.Refill(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if c.Applied != 2 || !c.HopsChanged {
		t.Fatalf("refill change %+v, want the 2 refused statements and hops changed", c)
	}
	if got, want := hopsOf(h, pk(1), 100), []string{pk(2), pk(3), pk(4)}; !slices.Equal(got, want) {
		t.Fatalf("hops after the refill %v, want %v", got, want)
	}
	if s := h.Stats(); s.Edges != 3 || s.LimitReason != "" {
		t.Fatalf("after the refill: %+v", s)
	}
}

// A limit raised but still too low keeps its reason after the refill.
func TestRefillStillShortKeepsTheReason(t *testing.T) {
	db, h, _ := refillWorld(t)
	h.SetLimits(edgeLimit(2))
	if _, err := h.Refill(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if s := h.Stats(); s.Edges != 2 || s.LimitReason != status.ReasonHeapEdgeLimit {
		t.Fatalf("after a refill one statement short: %+v", s)
	}
}

// pausedScan is the store as a refill reads it, with during run once the
// scan has read its first page and before that page is applied: what
// commits meanwhile is committed after the scan read it.
type pausedScan struct {
	*store.Store
	during func()
}

func (p *pausedScan) Scan(ctx context.Context, kinds []int, fn func(*nostr.Event) error) error {
	return p.Store.Scan(ctx, kinds, func(ev *nostr.Event) error {
		if p.during != nil {
			p.during()
			p.during = nil
		}
		return fn(ev)
	})
}

// A delete (v="") committed while the refill runs, and an event removed
// from the store meanwhile (prune, delete --filter), stay gone: the refill
// read both before they changed, and brings back neither. (The removal was
// seen coming back before the refill left out what Remove took.)
func TestRefillKeepsWhatChangedMeanwhile(t *testing.T) {
	db, h, evs := refillWorld(t)
	h.SetLimits(edgeLimit(100))
	src := &pausedScan{Store: db, during: func() {
		deleted := heaptest.TrustEvent(validation.KindTrust, pk(1), 'p', pk(3), "", "", nil, 20)
		if _, err := db.SaveBatch([]*nostr.Event{deleted}); err != nil {
			t.Fatal(err)
		}
		s, err := validation.ParseStatement(deleted)
		if err != nil {
			t.Fatal(err)
		}
		h.Apply([]*validation.Statement{s}, nil) // as the pipeline's commit listener does
		removed, err := db.DeleteEvents([]string{evs["d"].ID})
		if err != nil || len(removed) != 1 {
			t.Fatalf("remove: %v (%d)", err, len(removed))
		}
		h.Remove(removed)
	}}
	if _, err := h.Refill(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	if src.during != nil {
		t.Fatal("the changes were never made during the refill")
	}
	if got, want := hopsOf(h, pk(1), 100), []string{pk(2)}; !slices.Equal(got, want) {
		t.Fatalf("hops after the refill %v, want %v: a deleted or removed statement came back", got, want)
	}
	if got := resolve(h, pk(1), "p", pk(3), validation.KindTrust, "", "", 100); got != "none" {
		t.Fatalf("the deleted statement reads %s", got)
	}
	if s := h.Stats(); s.LimitReason != "" {
		t.Fatalf("after the refill: %+v", s)
	}
}

// BenchmarkRefill1M: a heap of 1,000,000 generated statements built under an
// edge limit of half of them, then the limit raised and Refill run, beside a
// full Build of the same statements in the same run. Reports the seconds of
// each, the bytes held at the end of each, and the peak of live heap bytes
// during each (sampled), so the refill's peak can be read against the
// build's: it extends the heap in place, never holding a second one.
func BenchmarkRefill1M(b *testing.B) {
	src := newGeneratedScanner(100_000, 10)
	for b.Loop() {
		base := heapBytes()
		full := New(settings.DefaultLimits())
		stop := samplePeak()
		start := time.Now()
		if _, err := full.Build(context.Background(), src); err != nil {
			b.Fatal(err)
		}
		buildSecs, buildPeak := time.Since(start).Seconds(), stop()
		fullBytes := heapBytes() - base
		edges := full.Stats().Edges
		full = nil

		base = heapBytes()
		h := New(edgeLimit(edges / 2))
		if _, err := h.Build(context.Background(), src); err != nil {
			b.Fatal(err)
		}
		halfBytes := heapBytes() - base
		h.SetLimits(settings.DefaultLimits())
		stop = samplePeak()
		start = time.Now()
		if _, err := h.Refill(context.Background(), src); err != nil {
			b.Fatal(err)
		}
		refillSecs, refillPeak := time.Since(start).Seconds(), stop()
		refilledBytes := heapBytes() - base
		if st := h.Stats(); st.Edges != edges || st.LimitReason != "" {
			b.Fatalf("refilled heap %+v, want %d edges and no limit", st, edges)
		}
		mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
		b.ReportMetric(buildSecs, "build-s")
		b.ReportMetric(refillSecs, "refill-s")
		b.ReportMetric(mib(fullBytes), "built-MiB")
		b.ReportMetric(mib(halfBytes), "half-MiB")
		b.ReportMetric(mib(refilledBytes), "refilled-MiB")
		b.ReportMetric(mib(buildPeak-min(buildPeak, base)), "build-peak-MiB")
		b.ReportMetric(mib(refillPeak-min(refillPeak, base)), "refill-peak-MiB")
		runtime.KeepAlive(h)
	}
}

// samplePeak samples the live heap bytes (runtime/metrics, no stop of the
// world) every 2 ms until the returned function is called, which returns
// the highest sample.
func samplePeak() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var high uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			high = max(high, sample[0].Value.Uint64())
			select {
			case <-done:
				peak <- high
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-peak }
}
