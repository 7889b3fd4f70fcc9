package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// A first sync writes its events as fast as they verify, the load under
// which SQLite never started the write-ahead log over by itself (issue 26:
// 11 GB of log beside a 1 GB database). Synced here under a bound of 4 MiB,
// the log stays under it, nothing is lost, and status and /metrics show it.
// Seen failing with the store's guard removed: the log reached 11.9 MB.
func TestFirstSyncKeepsTheLogUnderItsBound(t *testing.T) {
	t.Parallel()
	root, evs := fixture.WebOfTrust(6000, 20, time.Now().Unix())
	_, remote := startEngine(t, Options{DataDir: seededDataDir(t, evs)})
	// transactions of 250 events (about 1.4 MiB of log each with the id in
	// the author index): the guard empties the log past half its bound, so
	// one transaction must fit in the other half
	eng, url := startEngine(t, Options{Ingest: ingest.Config{MaxBatch: 250}})
	// the fixture's first authors write more than the per-author cap
	// (maxEvents / maxTotalAuthors) of the defaults
	limits := settings.DefaultLimits()
	limits.MaxTotalAuthors = 2000
	if err := eng.Modify(settings.SetLimits(limits)); err != nil {
		t.Fatal(err)
	}
	// below the setting's least, so a small sync passes it several times
	const limit = 4 << 20
	if err := eng.store.SetWALLimit(limit); err != nil {
		t.Fatal(err)
	}
	follow(t, eng, root.Pubkey, remote)
	testutil.EventuallyWithin(t, 2*time.Minute, "the first sync stored every event", func() bool {
		return eng.Status().Ingest.Accepted == int64(len(evs))
	})

	base := "http" + strings.TrimPrefix(url, "ws")
	code, body := httpGet(t, base+"/api/v1/status")
	var st status.Snapshot
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("status: %d %s", code, body)
	}
	s := st.Store
	t.Logf("log peak %d bytes, bound %d, reset %d times (%d held up); database %d bytes", s.WALPeakBytes, s.WALLimitBytes, s.WALResets, s.WALResetsBlocked, s.DatabaseBytes)
	if s.WALLimitBytes != limit || s.WALPeakBytes > limit || s.WALBytes > limit {
		t.Fatalf("the log passed its bound: %+v", s)
	}
	// at least once past half the bound (a slow run, as under -race on a
	// busy machine, lets SQLite start the log over by itself between
	// batches, so the guard has less to do)
	if s.WALResets < 1 || s.DatabaseBytes == 0 {
		t.Fatalf("the sync wrote too little to show the bound: %+v", s)
	}
	_, metrics := httpGet(t, base+"/metrics")
	for _, want := range []string{fmt.Sprintf("dtp_store_wal_limit_bytes %g", float64(limit)), "\ndtp_store_wal_bytes ",
		"\ndtp_store_wal_peak_bytes ", "\ndtp_store_database_bytes ", "\ndtp_store_wal_resets_total "} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// Pushes at full rate (four connections, 512 events each in flight, no rate
// limit) and an import write as fast as a first sync; under a bound of
// 8 MiB the log stays under it through both, and every event is stored.
// Seen failing with the store's guard removed.
func TestPushAndImportKeepTheLogUnderItsBound(t *testing.T) {
	t.Parallel()
	_, evs := fixture.WebOfTrust(16000, 20, time.Now().Unix())
	pushed, imported := evs[:len(evs)/2], evs[len(evs)/2:]
	limits := server.DefaultLimits()
	limits.EventsPerSecond, limits.EventsBurst = 1e9, 1e9
	// A bound below the setting's least, so a small load passes it several
	// times, holds transactions up to its half (4 MiB): batches of at most 100
	// events here (the default 1,000 write about 9 MiB of log, which the least
	// setting, 32 MiB, holds).
	eng, url := startEngine(t, Options{ServerLimits: limits, Ingest: ingest.Config{MaxBatch: 100}})
	const limit = 8 << 20
	if err := eng.store.SetWALLimit(limit); err != nil {
		t.Fatal(err)
	}
	check := func(what string, resetsBefore int64) int64 {
		t.Helper()
		s := eng.Status().Store
		t.Logf("%s: log peak %d bytes, bound %d, reset %d times (%d held up)", what, s.WALPeakBytes, s.WALLimitBytes, s.WALResets, s.WALResetsBlocked)
		if s.WALPeakBytes > limit || s.WALBytes > limit {
			t.Fatalf("%s: the log passed its bound: %+v", what, s)
		}
		if s.WALResets < resetsBefore+1 { // at least once, as in TestFirstSyncKeepsTheLogUnderItsBound
			t.Fatalf("%s wrote too little to show the bound: %+v", what, s)
		}
		return s.WALResets
	}

	const conns = 4
	frames := make([][][]byte, conns)
	for i, ev := range pushed {
		data, _ := json.Marshal([]any{"EVENT", ev})
		frames[i%conns] = append(frames[i%conns], maskedFrame(data))
	}
	var wg sync.WaitGroup
	for c := range conns {
		cl := dialPushClient(t, url)
		defer cl.conn.Close()
		wg.Go(func() {
			if err := cl.push(frames[c], 512); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	resets := check("push", 0)

	var jsonl bytes.Buffer
	for _, ev := range imported {
		jsonl.WriteString(ev.String() + "\n")
	}
	tally, err := eng.Import(context.Background(), &jsonl, nil)
	if err != nil || tally.Stored != len(imported) {
		t.Fatalf("import: %+v %v", tally, err)
	}
	check("import", resets)
	if got := eng.Status().Ingest.Accepted; got != int64(len(evs)) {
		t.Fatalf("%d of %d events stored", got, len(evs))
	}
}

// The bound is the user's setting (limits --max-wal-mib), applied to a
// running engine; its default is the store's own.
func TestWALLimitIsASetting(t *testing.T) {
	t.Parallel()
	eng := openQuiet(t, t.TempDir())
	defer eng.Close()
	if got, want := eng.Status().Store.WALLimitBytes, int64(settings.DefaultLimits().MaxWALMiB)<<20; got != want || got != store.DefaultWALLimit {
		t.Fatalf("default bound %d, want %d (the store's %d)", got, want, store.DefaultWALLimit)
	}
	limits := settings.DefaultLimits()
	limits.MaxWALMiB = 48
	if err := eng.Modify(settings.SetLimits(limits)); err != nil {
		t.Fatal(err)
	}
	if got := eng.Status().Store.WALLimitBytes; got != 48<<20 {
		t.Fatalf("bound %d after setting 48 MiB", got)
	}
	limits.MaxWALMiB = 8
	if err := eng.Modify(settings.SetLimits(limits)); err == nil || !strings.Contains(err.Error(), "maxWALMiB must be from 32") {
		t.Fatalf("a bound below the least: %v", err)
	}
}
