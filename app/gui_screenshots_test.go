package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
)

// windowTabs are the window's tabs in order, named as their screenshots
// in docs/screenshots; Alt+N selects the N-th.
var windowTabs = []string{"status", "look-up", "relays", "frontier", "activity", "settings", "repositories"}

// TestWindowScreenshots writes docs/screenshots/TAB.png, one per tab, from
// the real window on Xvfb: the app syncs a 20,000-event web of trust from a
// second (headless) instance, plus a relay that refuses connections, then
// each tab is selected with Alt+N and the window captured. The Look-up tab
// shows an author at depth 2. Run by packaging/screenshots.sh.
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

	var snap status.Snapshot
	waitFor(t, 4*time.Minute, "the start-up pass to store the fixture", func() bool {
		time.Sleep(time.Second)
		out, err := cliRun(t, local, "status", "--json")
		return err == nil && json.Unmarshal([]byte(out), &snap) == nil &&
			snap.Ingest.Accepted == total && snap.LastSync > 0 && snap.State != status.StateRunning
	})

	// the last author WebOfTrust puts at depth 2
	subject, err := nip19.EncodePublicKey(fixture.NewAuthor(1000 + fanout*fanout - 1).Pubkey)
	if err != nil {
		t.Fatal(err)
	}
	xdotool(ctx, t, display, "search", "--sync", "--name", "DTP Personal Server", "windowfocus", "--sync")
	shot := func(name string) {
		time.Sleep(2 * time.Second) // the next snapshot, or the look-up's answer
		windowShot(ctx, t, display, filepath.Join("..", "docs", "screenshots", name+".png"))
	}
	for i, name := range windowTabs {
		if name != "look-up" {
			xdotool(ctx, t, display, "key", "alt+"+strconv.Itoa(i+1))
			shot(name)
		}
	}
	// last: the look-up entry keeps the focus, and with it the Alt keys
	xdotool(ctx, t, display, "key", "ctrl+l")
	xdotool(ctx, t, display, "type", "--delay", "10", subject)
	xdotool(ctx, t, display, "key", "Return")
	shot("look-up")
}

// windowShot captures the app's window alone.
func windowShot(ctx context.Context, t *testing.T, display, path string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "xdotool", "search", "--name", "DTP Personal Server")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	ids, err := cmd.Output()
	if err != nil {
		t.Fatalf("find the window: %v", err)
	}
	id := string(ids[:len(ids)-1])
	shot := exec.CommandContext(ctx, "import", "-window", id, path)
	shot.Env = cmd.Env
	if out, err := shot.CombinedOutput(); err != nil {
		t.Fatalf("capture %s: %v\n%s", path, err, out)
	}
	t.Logf("screenshot %s", path)
}
