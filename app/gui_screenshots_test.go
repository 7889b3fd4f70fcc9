package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// windowTabs are the window's tabs in order, named as their screenshots
// in docs/screenshots; Alt+N selects the N-th.
var windowTabs = []string{"status", "look-up", "relays", "frontier", "activity", "settings", "repositories"}

// TestWindowScreenshots writes docs/screenshots/TAB.png, one per tab, from
// the real window on Xvfb: the app syncs a 20,000-event web of trust from a
// second (headless) instance, plus a relay that refuses connections. The
// Relays tab is captured during that start-up pass (its bars show), the
// others after it, each selected with Alt+N (on Relays, the first relay is
// selected for its details); settings-access.png is the
// Settings tab scrolled to its end, and the Look-up tab shows an author at
// depth 2. Run by packaging/screenshots.sh.
func TestWindowScreenshots(t *testing.T) {
	if os.Getenv("DTP_SCREENSHOTS") != "1" {
		t.Skip("set DTP_SCREENSHOTS=1 (packaging/screenshots.sh) to write docs/screenshots")
	}
	requireDesktop(t, "import", "xdotool")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	work := t.TempDir()

	const total, fanout = 20_000, 20
	root, evs := fixture.WebOfTrust(total, fanout, time.Now().Unix()-3600)
	events := filepath.Join(work, "events.jsonl")
	writeJSONL(t, events, evs)
	remoteDir := filepath.Join(work, "remote")
	if out, err := cliRun(t, remoteDir, "import", events); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	remote := startServer(t, remoteDir)

	local := filepath.Join(work, "local")
	for _, args := range [][]string{
		{"roots", "add", root.Pubkey},
		{"relays", "add", "ws://" + remote.addr},
		{"relays", "add", "ws://" + freeAddr(t)}, // nobody listens: a relay in backoff, with its error
		wholeWebOfTrust,
	} {
		if out, err := cliRun(t, local, args...); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}

	display := startXvfb(ctx, t)
	busAddr := startSessionBus(ctx, t)
	newTrayWatcher(t, busAddr)
	app := exec.CommandContext(ctx, binary, "--data", local, "--listen", freeAddr(t))
	app.Env = desktopEnv(display, busAddr, filepath.Join(work, "home"))
	_, stop := startApp(t, app, filepath.Join(work, "app.log"))
	defer stop()
	waitForWindow(t, display, "DTP Personal Server")
	xdotool(ctx, t, display, "search", "--sync", "--name", "DTP Personal Server", "windowfocus", "--sync")
	shot := func(name string) {
		windowShot(ctx, t, display, filepath.Join("..", "docs", "screenshots", name+".png"))
	}
	snapshot := func() (snap status.Snapshot) {
		out, err := cliRun(t, local, "status", "--json")
		if err != nil || json.Unmarshal([]byte(out), &snap) != nil {
			t.Logf("status: %v %s", err, out)
		}
		return snap
	}

	// The Relays tab during the start-up pass, with its bar per relay.
	xdotool(ctx, t, display, "key", "alt+"+strconv.Itoa(slices.Index(windowTabs, "relays")+1))
	testutil.EventuallyWithin(t, 2*time.Minute, "a relay's share of the start-up pass", func() bool {
		for _, r := range snapshot().Relays {
			if r.Progress != nil && r.Progress.Done > 0 {
				return true
			}
		}
		return false
	})
	time.Sleep(500 * time.Millisecond) // the window shows the snapshots a few times a second
	// the first relay selected: its details in the pane under the table
	window := windowID(ctx, t, display)
	xdotool(ctx, t, display, "mousemove", "--window", window, "60", "141", "click", "1")
	time.Sleep(500 * time.Millisecond)
	shot("relays")

	testutil.EventuallyWithin(t, 4*time.Minute, "the start-up pass to store the fixture", func() bool {
		snap := snapshot()
		return snap.Ingest.Accepted == total && snap.LastSync > 0 && snap.State != status.StateRunning
	})

	// the last author WebOfTrust puts at depth 2
	subject, err := nip19.EncodePublicKey(fixture.NewAuthor(1000 + fanout*fanout - 1).Pubkey)
	if err != nil {
		t.Fatal(err)
	}
	settle := func() { time.Sleep(2 * time.Second) } // the next snapshot, or the look-up's answer
	for i, name := range windowTabs {
		if name != "look-up" && name != "relays" {
			xdotool(ctx, t, display, "key", "alt+"+strconv.Itoa(i+1))
			settle()
			shot(name)
		}
	}
	// The Settings tab scrolled to its end, where the access rules are.
	xdotool(ctx, t, display, "key", "alt+"+strconv.Itoa(slices.Index(windowTabs, "settings")+1))
	// The wheel scrolls the innermost scrollable under the pointer, and
	// entries and tables are scrollables: the pointer stays over the form
	// labels, first low, then (once an entry reaches it) high, where by then
	// only labels pass until the end.
	for _, y := range []string{"470", "100"} {
		xdotool(ctx, t, display, "mousemove", "--window", window, "60", y, "sleep", "0.2",
			"click", "--repeat", "40", "--delay", "100", "5")
	}
	settle()
	shot("settings-access")
	// last: the look-up entry keeps the focus, and the answer stays on screen
	xdotool(ctx, t, display, "key", "ctrl+l")
	xdotool(ctx, t, display, "type", "--delay", "10", subject)
	xdotool(ctx, t, display, "key", "Return")
	settle()
	shot("look-up")
}

// windowID is the X window id of the app's window.
func windowID(ctx context.Context, t *testing.T, display string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "xdotool", "search", "--name", "DTP Personal Server")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	ids, err := cmd.Output()
	if err != nil {
		t.Fatalf("find the window: %v", err)
	}
	return strings.TrimSpace(string(ids))
}

// windowShot captures the app's window alone.
func windowShot(ctx context.Context, t *testing.T, display, path string) {
	t.Helper()
	shot := exec.CommandContext(ctx, "import", "-window", windowID(ctx, t, display), path)
	shot.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := shot.CombinedOutput(); err != nil {
		t.Fatalf("capture %s: %v\n%s", path, err, out)
	}
	t.Logf("screenshot %s", path)
}
