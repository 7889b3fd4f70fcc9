package engine

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
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
// core-seconds of verifying plus 1/S of storing. It also prints the process
// CPU time per event of each, which other load on the machine does not move.
// Run with -benchtime 1x; -cpuprofile shows where the time goes.
func BenchmarkIngestThroughput(b *testing.B) {
	evs := benchEvents()
	// The machine's speed drifts between runs (V moved by a third here), so
	// each round measures V, S and push back to back and has its own ratio;
	// the median round is reported, with the spread of the others.
	const rounds = 5
	var all []ingestRound
	for range b.N {
		for range rounds {
			all = append(all, measureRound(b, evs))
		}
	}
	slices.SortFunc(all, func(x, y ingestRound) int { return cmp.Compare(x.ratio(), y.ratio()) })
	r := all[len(all)/2]
	n := float64(runtime.GOMAXPROCS(0))
	busy := r.push.cpu * r.push.rate / n // share of the cores in use during push
	b.Logf("verifier %s, %d cores, median of %d rounds: push %.0f ev/s (cores %.0f%% busy), V %.0f, S %.0f, CPU limit %.0f, push/limit %.2f (rounds %.2f to %.2f)",
		validation.VerifierName, int(n), len(all), r.push.rate, 100*busy, r.verify.rate, r.save.rate, r.limit(), r.ratio(),
		all[0].ratio(), all[len(all)-1].ratio())
	// CPU time per event does not count what other processes took: the
	// steadier figure on a shared machine, and the one to optimise
	b.Logf("CPU per event: push %.1f µs; verify %.1f + store %.1f = %.1f µs, %.2f of push's",
		1e6*r.push.cpu, 1e6*r.verify.cpu, 1e6*r.save.cpu, 1e6*(r.verify.cpu+r.save.cpu), (r.verify.cpu+r.save.cpu)/r.push.cpu)
	b.ReportMetric(r.push.rate, "push-ev/s")
	b.ReportMetric(r.verify.rate, "verify-ev/s")
	b.ReportMetric(r.save.rate, "store-ev/s")
	b.ReportMetric(r.limit(), "cpu-limit-ev/s")
	b.ReportMetric(r.ratio(), "push/limit")
	b.ReportMetric((r.verify.cpu+r.save.cpu)/r.push.cpu, "verify+store/push-cpu")
}

// ingestRound is V, S and push measured back to back.
type ingestRound struct{ verify, save, push trial }

func measureRound(b *testing.B, evs []*nostr.Event) ingestRound {
	return ingestRound{verify: verifyCeiling(b, evs), save: storeCeiling(b, evs), push: pushThroughput(b, evs)}
}

// limit is the machine's CPU limit n/(n/V + 1/S) on n cores.
func (r ingestRound) limit() float64 {
	n := float64(runtime.GOMAXPROCS(0))
	return n / (n/r.verify.rate + 1/r.save.rate)
}

func (r ingestRound) ratio() float64 { return r.push.rate / r.limit() }

// trial is one timed run over the bench events: events per second of wall
// time, and process CPU seconds per event.
type trial struct{ rate, cpu float64 }

// timed runs fn over n events and measures it.
func timed(b *testing.B, n int, fn func()) trial {
	start, cpu0 := time.Now(), testutil.ProcessCPU(b)
	fn()
	wall, cpu := time.Since(start), testutil.ProcessCPU(b)-cpu0
	return trial{float64(n) / wall.Seconds(), cpu.Seconds() / float64(n)}
}

func verifyCeiling(b *testing.B, evs []*nostr.Event) trial {
	return timed(b, len(evs), func() {
		var wg sync.WaitGroup
		workers := runtime.NumCPU()
		for w := range workers {
			wg.Go(func() {
				for i := w; i < len(evs); i += workers {
					if err := validation.VerifyEvent(evs[i]); err != nil {
						panic(err)
					}
				}
			})
		}
		wg.Wait()
	})
}

func storeCeiling(b *testing.B, evs []*nostr.Event) trial {
	st, err := store.Open(filepath.Join(b.TempDir(), "ceiling.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	return timed(b, len(evs), func() {
		for i := 0; i < len(evs); i += 1000 {
			if _, err := st.SaveBatch(evs[i:min(i+1000, len(evs))]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// pushThroughput pushes every event over 4 loopback WebSocket connections,
// each keeping up to 512 events awaiting OK, and times until the last OK
// (the CPU is the whole process's: server and client).
func pushThroughput(b *testing.B, evs []*nostr.Event) trial {
	limits := server.DefaultLimits()
	limits.EventsPerSecond, limits.EventsBurst = 1e9, 1e9
	_, url := startEngine(b, Options{ServerLimits: limits})
	const conns = 4
	clients := make([]*pushClient, conns)
	for c := range clients {
		clients[c] = dialPushClient(b, url)
		b.Cleanup(func() { clients[c].conn.Close() })
	}
	frames := make([][][]byte, conns)
	for i, ev := range evs {
		data, _ := json.Marshal([]any{"EVENT", ev})
		frames[i%conns] = append(frames[i%conns], maskedFrame(data))
	}
	return timed(b, len(evs), func() {
		var wg sync.WaitGroup
		for c, cl := range clients {
			wg.Go(func() {
				if err := cl.push(frames[c], 512); err != nil {
					panic(err)
				}
			})
		}
		wg.Wait()
	})
}

// pushClient is the benchmark's WebSocket client, kept minimal because the
// process CPU charges its work to push: its frames are encoded and masked
// before the clock starts, as their JSON is, and it writes as many as its
// window allows at once. The server reads them as from any client.
type pushClient struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialPushClient(b testing.TB, wsURL string) *pushClient {
	u, err := neturl.Parse(wsURL)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		b.Fatal(err)
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.Host, base64.StdEncoding.EncodeToString(key))
	r := bufio.NewReaderSize(conn, 64<<10)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		b.Fatalf("upgrade: %v %v", resp, err)
	}
	return &pushClient{conn: conn, r: r}
}

// maskedFrame encodes data as one masked client text frame (RFC 6455 5.2).
func maskedFrame(data []byte) []byte {
	f := []byte{0x81}
	switch n := len(data); {
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n < 1<<16:
		f = append(f, 0x80|126, byte(n>>8), byte(n))
	default:
		f = append(f, 0x80|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	f = append(f, mask...)
	for i, c := range data {
		f = append(f, c^mask[i%4])
	}
	return f
}

// push sends frames, at most window unanswered, and returns once every OK
// arrived; an OK false is an error.
func (cl *pushClient) push(frames [][]byte, window int) error {
	credit := make(chan struct{}, window)
	sent := make(chan error, 1)
	go func() {
		var buf []byte
		for _, f := range frames {
			select {
			case credit <- struct{}{}:
			default: // the window is full: send what is collected, then wait
				if len(buf) > 0 {
					if _, err := cl.conn.Write(buf); err != nil {
						sent <- err
						return
					}
					buf = buf[:0]
				}
				credit <- struct{}{}
			}
			buf = append(buf, f...)
		}
		_, err := cl.conn.Write(buf)
		sent <- err
	}()
	var payload []byte
	for got := 0; got < len(frames); {
		var err error
		if payload, err = cl.readFrame(payload[:0]); err != nil {
			return err
		}
		if isOK, accepted := readOK(payload); isOK {
			if !accepted {
				return fmt.Errorf("refused: %s", payload)
			}
			got++
			<-credit
		}
	}
	return <-sent
}

// readFrame reads one unfragmented, unmasked server frame's payload into buf.
func (cl *pushClient) readFrame(buf []byte) ([]byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(cl.r, h[:]); err != nil {
		return nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var l [2]byte
		if _, err := io.ReadFull(cl.r, l[:]); err != nil {
			return nil, err
		}
		n = uint64(binary.BigEndian.Uint16(l[:]))
	case 127:
		var l [8]byte
		if _, err := io.ReadFull(cl.r, l[:]); err != nil {
			return nil, err
		}
		n = binary.BigEndian.Uint64(l[:])
	}
	if h[0] != 0x81 {
		return nil, fmt.Errorf("server frame %#x: only whole text frames are expected", h[0])
	}
	buf = slices.Grow(buf, int(n))[:n]
	_, err := io.ReadFull(cl.r, buf)
	return buf, err
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
