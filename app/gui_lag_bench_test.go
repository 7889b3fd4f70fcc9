package main

// Responsiveness of the desktop app during a large sync: the app, with its
// window on a virtual X display, pulls a 100,000-event web of trust from a
// second (headless) instance on loopback while the UI's lag probe
// (ui.LagReportEnv) measures how long work handed to the UI thread waits.
// The window shows the Activity tab, whose rate chart and counters change
// throughout.
// It needs Xvfb and dbus-daemon, so it runs only with DTP_GUI_TEST=1:
//
//	DTP_GUI_TEST=1 go test ./app -run '^$' -bench GUILag -benchtime 1x -v

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui"
)

// BenchmarkGUILagDuringSync reports the UI thread's longest and 99th
// percentile wait (max-lag-ms, p99-lag-ms) while the app syncs 100,000
// events, and the sync's rate (sync-ev/s, from launch to the end of the
// start-up pass).
func BenchmarkGUILagDuringSync(b *testing.B) {
	requireDesktop(b, "xdotool")
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	work := b.TempDir()

	// 1 root, 40 authors it trusts, 1,600 they trust: inside the frontier
	// caps (wholeWebOfTrust), so the whole set is in the frontier.
	const total, fanout = 100_000, 40
	start := time.Now()
	root, evs := fixture.WebOfTrust(total, fanout, time.Now().Unix())
	b.Logf("signed %d events in %v", total, time.Since(start).Round(time.Millisecond))
	events := filepath.Join(work, "events.jsonl")
	writeJSONL(b, events, evs)

	remoteDir := filepath.Join(work, "remote")
	start = time.Now()
	if out, err := cliRun(b, remoteDir, "import", events); err != nil {
		b.Fatalf("import: %v %s", err, out)
	}
	b.Logf("imported into the remote in %v", time.Since(start).Round(time.Millisecond))
	remote := startServer(b, remoteDir)

	display := startXvfb(ctx, b)
	busAddr := startSessionBus(ctx, b)
	newTrayWatcher(b, busAddr) // a desktop with a tray, as users have

	var lag ui.LagReport
	var rate float64
	b.ResetTimer()
	for i := range b.N {
		local := filepath.Join(work, "local"+strconv.Itoa(i))
		for _, args := range [][]string{
			{"roots", "add", root.Pubkey},
			{"relays", "add", "ws://" + remote.addr},
			{"strategy", settings.FrontierInterval},
			wholeWebOfTrust,
		} {
			if out, err := cliRun(b, local, args...); err != nil {
				b.Fatalf("%v: %v %s", args, err, out)
			}
		}
		lag, rate = syncWithWindow(ctx, b, display, busAddr, local, total)
	}
	b.StopTimer()
	b.ReportMetric(lag.MaxMs, "max-lag-ms")
	b.ReportMetric(lag.P99Ms, "p99-lag-ms")
	b.ReportMetric(float64(lag.Samples), "lag-samples")
	b.ReportMetric(rate, "sync-ev/s")
}

// syncWithWindow runs the desktop app on local until its start-up pass has
// stored want events, stops it with SIGTERM, and returns its lag report and
// the sync's events per second.
func syncWithWindow(ctx context.Context, b *testing.B, display, busAddr, local string, want int64) (ui.LagReport, float64) {
	b.Helper()
	home := filepath.Join(local, "home")
	reportPath := filepath.Join(local, "lag.json")
	app := exec.CommandContext(ctx, binary, "--data", local, "--listen", freeAddr(b))
	app.Env = desktopEnv(display, busAddr, home, ui.LagReportEnv+"="+reportPath)
	launched := time.Now()
	exited, stop := startApp(b, app, filepath.Join(local, "app.log"))
	defer stop()
	waitForWindow(b, display, "DTP Personal Server")
	xdotool(ctx, b, display, "search", "--sync", "--name", "DTP Personal Server", "windowfocus", "--sync", "key", "alt+5")

	// The start-up pass is over once it has a finish time and no longer runs,
	// or when it failed. Polled once a second: each poll starts a process,
	// which would otherwise take a noticeable share of the two cores.
	var snap status.Snapshot
	for deadline := time.Now().Add(6 * time.Minute); ; time.Sleep(time.Second) {
		out, err := cliRun(b, local, "status", "--json")
		if err == nil && json.Unmarshal([]byte(out), &snap) == nil &&
			(snap.State == status.StateError || snap.LastSync > 0 && snap.State != status.StateRunning) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the start-up sync pass did not finish within 6 min: %s %v", out, err)
		}
	}
	elapsed := time.Since(launched)
	if snap.Ingest.Accepted != want {
		b.Fatalf("the pass ended %s with %d events stored, want %d (coverage %+v)",
			snap.State, snap.Ingest.Accepted, want, snap.Coverage)
	}
	b.Logf("synced %d events in %v (state %s, coverage %s)", snap.Ingest.Accepted, elapsed.Round(time.Millisecond), snap.State, snap.Coverage.State)

	if err := app.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			b.Fatalf("app exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		b.Fatal("app still running 30 s after SIGTERM")
	}
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		b.Fatalf("no lag report after SIGTERM: %v", err)
	}
	var lag ui.LagReport
	if err := json.Unmarshal(raw, &lag); err != nil || lag.Samples == 0 {
		b.Fatalf("lag report %q: %v", raw, err)
	}
	b.Logf("UI lag over %d samples: max %.1f ms (%.1f s after the loop started), p99 %.1f ms, p50 %.1f ms",
		lag.Samples, lag.MaxMs, lag.MaxAtS, lag.P99Ms, lag.P50Ms)
	return lag, float64(snap.Ingest.Accepted) / elapsed.Seconds()
}

// wholeWebOfTrust sets limits under which a pass keeps every event of a
// fixture.WebOfTrust of up to 2,000 authors: under the defaults the
// per-author cap (maxEvents / maxTotalAuthors = 20 statements) cuts its
// authors, who hold more.
var wholeWebOfTrust = []string{"limits", "--max-total-authors", "2000"}

// writeJSONL writes one event per line, as `import` reads them.
func writeJSONL(b testing.TB, path string, evs []*nostr.Event) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, ev := range evs {
		w.WriteString(ev.String())
		w.WriteByte('\n')
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		b.Fatal(err)
	}
}
