package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// heapPeak samples the process's live heap until stop is closed and
// returns the highest value seen.
func heapPeak(stop <-chan struct{}) uint64 {
	var peak uint64
	var ms runtime.MemStats
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}

// storeLargeEvents pushes n 32009s of about 60 kB each (an unknown tag).
func storeLargeEvents(t *testing.T, url string, n int) {
	t.Helper()
	pusher := dialRaw(t, url)
	alice := fixture.NewAuthor(1)
	padding := strings.Repeat("x", 60_000)
	for i := range n {
		ev := alice.Trust(fixture.XUser(fmt.Sprint(i)), "1", int64(t0+i))
		ev.Tags = append(ev.Tags, nostr.Tag{"padding", padding})
		if ok, msg := pusher.push(alice.Sign(ev)); !ok {
			t.Fatalf("fixture refused: %s", msg)
		}
	}
}

// openNonReaders opens n connections that each ask for every 32009 three
// times and never read.
func openNonReaders(t *testing.T, url string, n int) {
	t.Helper()
	for i := range n {
		ws, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		for j := range 3 {
			b, _ := json.Marshal([]any{"REQ", fmt.Sprintf("all-%d-%d", i, j), nostr.Filter{Kinds: []int{32009}}})
			if err := ws.Write(context.Background(), websocket.MessageText, b); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Clients that subscribe to large stored events and never read cannot take
// the server's memory: their queues are bounded in bytes, the queries are
// streamed from the store, and past the total budget the slowest are
// dropped, while an honest client keeps getting answers.
func TestNonReadingClientsCannotTakeTheMemory(t *testing.T) {
	const (
		stored     = 400       // events of about 60 kB each: 24 MB per full REQ
		nonReaders = 6         // each opening 3 full REQs and never reading
		heapBound  = 128 << 20 // what the peak may exceed the baseline by
	)
	limits := server.DefaultLimits()
	limits.MaxTotalQueuedBytes = 8 << 20 // two non-readers' queues: the rest are dropped
	_, url := startEngine(t, Options{ServerLimits: limits})
	storeLargeEvents(t, url, stored)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapAlloc

	stop := make(chan struct{})
	peak := make(chan uint64, 1)
	go func() { peak <- heapPeak(stop) }()

	openNonReaders(t, url, nonReaders)

	// the honest client asks small questions throughout and is answered,
	// until the non-readers filled the total budget and some were dropped
	honest := dialRaw(t, url)
	base := "http" + strings.TrimPrefix(url, "ws")
	dropped := func() bool {
		_, metrics := httpGet(t, base+"/metrics")
		return strings.Contains(metrics, `dtp_server_refused_total{rule="too-slow"}`)
	}
	var answered int
	var slowest time.Duration
	start := time.Now()
	for answered < 10 || time.Since(start) < 3*time.Second || !dropped() {
		if time.Since(start) > 60*time.Second {
			t.Fatalf("after 60 s: %d answers, dropped a client: %v", answered, dropped())
		}
		asked := time.Now()
		if got := honest.req(nostr.Filter{Kinds: []int{32009}, Limit: 3}); len(got) != 3 {
			t.Fatalf("honest REQ got %d events, want 3", len(got))
		}
		if n := honest.count(nostr.Filter{Kinds: []int{32009}}); n != stored {
			t.Fatalf("honest COUNT %d, want %d", n, stored)
		}
		slowest = max(slowest, time.Since(asked))
		answered++
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	grew := int64(<-peak) - int64(baseline)
	t.Logf("heap baseline %d MiB, peak +%d MiB with %d non-reading clients; the honest client was answered %d times in %s, slowest %s",
		baseline>>20, grew>>20, nonReaders, answered, time.Since(start).Round(time.Millisecond), slowest.Round(time.Millisecond))
	if grew > heapBound {
		t.Errorf("heap grew by %d MiB, more than the %d MiB bound", grew>>20, heapBound>>20)
	}
}

// Concurrent connections are capped in total and per remote address: the
// upgrade past a cap is answered 503, naming the limit, and a slot given
// back is taken again.
func TestConnectionsAreCapped(t *testing.T) {
	for name, tc := range map[string]struct {
		total, perAddress, open int
		says                    string
	}{
		"total":       {2, 64, 2, "too many connections: 2 are open, the limit of this server"},
		"per address": {256, 3, 3, "too many connections: 3 are open from 127.0.0.1, the limit per address"},
	} {
		eng, url := startEngine(t, Options{})
		l := eng.Settings().Limits
		l.MaxConnections, l.MaxConnectionsPerAddress = tc.total, tc.perAddress
		if err := eng.Modify(settings.SetLimits(l)); err != nil {
			t.Fatal(err)
		}
		var open []*websocket.Conn
		for range tc.open {
			ws, _, err := websocket.Dial(context.Background(), url, nil)
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, ws)
		}
		_, resp, err := websocket.Dial(context.Background(), url, nil)
		if err == nil || resp == nil || resp.StatusCode != 503 {
			t.Fatalf("%s: connection past the cap: %v %v, want 503", name, resp, err)
		}
		if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), tc.says) {
			t.Errorf("%s: refusal %q, want %q", name, body, tc.says)
		}
		open[0].Close(websocket.StatusNormalClosure, "")
		testutil.Eventually(t, "a freed slot is taken again", func() bool {
			ws, _, err := websocket.Dial(context.Background(), url, nil)
			if err != nil {
				return false
			}
			ws.CloseNow()
			return true
		})
		for _, ws := range open[1:] {
			ws.CloseNow()
		}
	}
}
