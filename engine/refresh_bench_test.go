package engine

import (
	"context"
	"database/sql"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/status"
)

// BenchmarkDailyRefresh measures the daily full refresh of a 100,000-event
// frontier already in sync, then with 1,000 new events on the remote, once
// against a remote that answers NIP-77 and once against the same data with
// NIP-77 turned off (paged REQs). Bytes are counted on the wire by a
// loopback proxy in front of each remote, so both modes are measured the
// same way. Run with -benchtime 1x.
func BenchmarkDailyRefresh(b *testing.B) {
	root, evs := pullFixture()
	seedDir := seededDataDir(b, evs)

	pagedLimits := server.DefaultLimits()
	pagedLimits.MaxNegSessions = 0
	modes := []struct {
		name   string
		limits server.Limits
	}{{"paged", pagedLimits}, {"nip77", server.Limits{}}}

	fresh := newEvents(1000, time.Now().Unix())
	type figures struct{ inSync, withNew refreshCost }
	got := map[string]figures{}
	for range b.N {
		for _, m := range modes {
			remoteDir := b.TempDir()
			for _, suffix := range []string{"", "-wal"} {
				copyFile(b, DatabasePath(seedDir)+suffix, DatabasePath(remoteDir)+suffix)
			}
			remoteEng, remote := startEngine(b, Options{DataDir: remoteDir, ServerLimits: m.limits})
			proxy := startCountingProxy(b, remote)

			localDir := filepath.Join(b.TempDir(), "local")
			eng := openPullClient(b, localDir, root.Pubkey, proxy.url)
			if cov, err := eng.SyncOnce(context.Background()); err != nil || cov.State != status.StateComplete {
				b.Fatalf("%s: first pull: %+v %v", m.name, cov, err)
			}
			if n := eng.Status().Ingest.Accepted; n != int64(len(evs)) {
				b.Fatalf("%s: first pull stored %d events, want %d", m.name, n, len(evs))
			}

			var f figures
			ageCursors(b, localDir)
			f.inSync = refresh(b, eng, proxy)

			if _, err := remoteEng.store.SaveBatch(fresh); err != nil {
				b.Fatal(err)
			}
			ageCursors(b, localDir)
			f.withNew = refresh(b, eng, proxy)
			missing := 0
			for _, ev := range fresh {
				if ok, err := eng.store.Has(ev.ID); err != nil || !ok {
					missing++
				}
			}
			if missing > 0 {
				b.Fatalf("%s: the refresh missed %d of the %d new events", m.name, missing, len(fresh))
			}
			eng.Close()
			got[m.name] = f
		}
	}
	paged, neg := got["paged"], got["nip77"]
	b.ReportMetric(paged.inSync.seconds, "paged-insync-s")
	b.ReportMetric(paged.inSync.bytes, "paged-insync-B")
	b.ReportMetric(neg.inSync.seconds, "nip77-insync-s")
	b.ReportMetric(neg.inSync.bytes, "nip77-insync-B")
	b.ReportMetric(paged.withNew.seconds, "paged-new1000-s")
	b.ReportMetric(paged.withNew.bytes, "paged-new1000-B")
	b.ReportMetric(neg.withNew.seconds, "nip77-new1000-s")
	b.ReportMetric(neg.withNew.bytes, "nip77-new1000-B")
	b.ReportMetric(neg.inSync.bytes/paged.inSync.bytes, "insync-bytes-ratio")
	b.ReportMetric(neg.inSync.seconds/paged.inSync.seconds, "insync-time-ratio")
}

// refreshCost is one refresh's wall time and bytes received from the remote.
type refreshCost struct{ seconds, bytes float64 }

func refresh(b *testing.B, eng *Engine, proxy *countingProxy) refreshCost {
	b.Helper()
	proxy.received.Store(0)
	start := time.Now()
	cov, err := eng.SyncOnce(context.Background())
	elapsed := time.Since(start)
	if err != nil || cov.State != status.StateComplete {
		b.Fatalf("refresh: %+v %v", cov, err)
	}
	return refreshCost{seconds: elapsed.Seconds(), bytes: float64(proxy.received.Load())}
}

// ageCursors moves every cursor's last completion back a day, so the next
// pass is the daily full refresh.
func ageCursors(b *testing.B, dataDir string) {
	b.Helper()
	db, err := sql.Open("sqlite", DatabasePath(dataDir)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE cursors SET last_eose_at = last_eose_at - 86400`); err != nil {
		b.Fatal(err)
	}
}

// newEvents are n new statements by the fixture's depth-1 authors (so they
// are in the frontier), about X accounts the fixture does not name.
func newEvents(n int, now int64) []*nostr.Event {
	out := make([]*nostr.Event, n)
	for i := range out {
		a := fixture.NewAuthor(1 + i%40)
		out[i] = a.Trust(fixture.XUser(strconv.Itoa(10_000_000+i)), "1", now, fixture.Scopes("x.com"))
	}
	return out
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	data, err := os.ReadFile(from)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

// countingProxy forwards loopback TCP to a remote and counts the bytes the
// remote sends back.
type countingProxy struct {
	url      string
	received atomic.Int64
}

func startCountingProxy(b *testing.B, remoteURL string) *countingProxy {
	b.Helper()
	target := remoteURL[len("ws://"):]
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p := &countingProxy{url: "ws://" + ln.Addr().String()}
	var wg sync.WaitGroup
	b.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { p.forward(client, target) })
		}
	})
	return p
}

func (p *countingProxy) forward(client net.Conn, target string) {
	defer client.Close()
	remote, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer remote.Close()
	go func() {
		_, _ = io.Copy(remote, client)
		remote.Close()
	}()
	_, _ = io.Copy(countingWriter{client, &p.received}, remote)
}

// countingWriter counts as it writes, so a connection still open at the end
// of a refresh has its bytes counted.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}
