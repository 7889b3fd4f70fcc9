package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/testutil"
	"dtp-personal/engine/server"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// benchEvents are signed once per process: signing costs as much as verifying.
var benchEvents = sync.OnceValue(func() []*nostr.Event {
	const n = 20000
	authors := make([]fixture.Author, 200)
	for i := range authors {
		authors[i] = fixture.NewAuthor(i)
	}
	evs := make([]*nostr.Event, n)
	var wg sync.WaitGroup
	for w := range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += runtime.NumCPU() {
				a := authors[i%len(authors)]
				subject := fixture.P(authors[(i/len(authors)+1+i)%len(authors)].Pubkey)
				if i%3 == 1 {
					subject = fixture.XUser(itoa(i))
				}
				evs[i] = a.Trust(subject, "1", int64(1700000000+i), fixture.Scopes("x.com"))
			}
		}()
	}
	wg.Wait()
	return evs
})

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// BenchmarkIngestThroughput measures, in one run on the same machine: events
// per second pushed over a loopback WebSocket and stored (OK received), the
// verify-only ceiling V (id + Schnorr in a pool of one worker per CPU), the
// store-only ceiling S (SaveBatch of 1000, one writer), and push as a share of
// the machine's CPU limit n/(n/V + 1/S) on n cores: every event costs n/V
// core-seconds of verifying plus 1/S of storing. Run with -benchtime 1x;
// -cpuprofile shows where the time goes.
func BenchmarkIngestThroughput(b *testing.B) {
	evs := benchEvents()
	// Each figure is the best of three interleaved trials: other work on a
	// shared machine only ever slows a trial, and one slowed figure would
	// skew the ratio either way.
	var push, busy, verify, save float64
	for range b.N {
		for range 3 {
			verify = max(verify, verifyCeiling(evs))
			save = max(save, storeCeiling(b, evs))
			if rate, cpu := pushThroughput(b, evs); rate > push {
				push, busy = rate, cpu
			}
		}
	}
	n := float64(runtime.GOMAXPROCS(0))
	limit := n / (n/verify + 1/save)
	b.Logf("verifier %s, %d cores: push %.0f ev/s (cores %.0f%% busy), V %.0f, S %.0f, CPU limit %.0f, push/limit %.2f",
		validation.VerifierName, int(n), push, 100*busy, verify, save, limit, push/limit)
	b.ReportMetric(push, "push-ev/s")
	b.ReportMetric(verify, "verify-ev/s")
	b.ReportMetric(save, "store-ev/s")
	b.ReportMetric(limit, "cpu-limit-ev/s")
	b.ReportMetric(push/limit, "push/limit")
}

func verifyCeiling(evs []*nostr.Event) float64 {
	start := time.Now()
	var wg sync.WaitGroup
	workers := runtime.NumCPU()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(evs); i += workers {
				if err := validation.VerifyEvent(evs[i]); err != nil {
					panic(err)
				}
			}
		}()
	}
	wg.Wait()
	return float64(len(evs)) / time.Since(start).Seconds()
}

func storeCeiling(b *testing.B, evs []*nostr.Event) float64 {
	st, err := store.Open(filepath.Join(b.TempDir(), "ceiling.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	for i := 0; i < len(evs); i += 1000 {
		if _, err := st.SaveBatch(evs[i:min(i+1000, len(evs))]); err != nil {
			b.Fatal(err)
		}
	}
	return float64(len(evs)) / time.Since(start).Seconds()
}

// readOK reads the server's ["OK","<id>",<bool>,...] frames by their layout:
// decoding each into []any cost the in-process client about a tenth of a
// core, which the figures would charge to the server.
func readOK(data []byte) (isOK, accepted bool) {
	const head = `["OK","` // then 64 hex digits and `",`
	if !bytes.HasPrefix(data, []byte(head)) || len(data) < len(head)+66+4 {
		return false, false
	}
	return true, string(data[len(head)+66:len(head)+70]) == "true"
}

// pushThroughput pushes every event over 4 loopback WebSocket connections,
// each keeping up to 512 events awaiting OK, and times until the last OK.
// busy is the share of the cores the process (server and client) used.
func pushThroughput(b *testing.B, evs []*nostr.Event) (rate, busy float64) {
	limits := server.DefaultLimits()
	limits.EventsPerSecond, limits.EventsBurst = 1e9, 1e9
	_, url := startEngine(b, Options{ServerLimits: limits})
	const conns, window = 4, 512
	frames := make([][]byte, len(evs))
	for i, ev := range evs {
		frames[i], _ = json.Marshal([]any{"EVENT", ev})
	}
	start, cpu0 := time.Now(), testutil.ProcessCPU(b)
	var wg sync.WaitGroup
	for c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			ws, _, err := websocket.Dial(ctx, url, nil)
			if err != nil {
				panic(err)
			}
			defer ws.CloseNow()
			credit := make(chan struct{}, window)
			mine := 0
			for i := c; i < len(frames); i += conns {
				mine++
			}
			go func() {
				for i := c; i < len(frames); i += conns {
					credit <- struct{}{}
					if ws.Write(ctx, websocket.MessageText, frames[i]) != nil {
						return
					}
				}
			}()
			for got := 0; got < mine; {
				_, data, err := ws.Read(ctx)
				if err != nil {
					panic(err)
				}
				if isOK, accepted := readOK(data); isOK {
					if !accepted {
						panic(string(data))
					}
					got++
					<-credit
				}
			}
		}()
	}
	wg.Wait()
	wall, cpu := time.Since(start), testutil.ProcessCPU(b)-cpu0
	return float64(len(evs)) / wall.Seconds(), cpu.Seconds() / wall.Seconds() / float64(runtime.GOMAXPROCS(0))
}
