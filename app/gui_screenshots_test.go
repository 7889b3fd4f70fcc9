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

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
	"dtp-personal/engine/testrelay"
	"dtp-personal/internal/testutil"
)

// windowTabs are the window's tabs in order, named as their screenshots
// in docs/screenshots; Alt+N selects the N-th.
var windowTabs = []string{"status", "look-up", "relays", "frontier", "activity", "settings", "repositories"}

// TestWindowScreenshots writes docs/screenshots/TAB.png, one per tab, from
// the real window on Xvfb: the app syncs a 20,000-event web of trust from a
// second (headless) instance, plus a relay that refuses connections and one
// that holds kind-0 profiles for most of the authors, so people show by
// name (namedWebOfTrust). The Relays tab is captured during that start-up
// pass (its bars show), the others after it, each selected with Alt+N (on
// My network, a person is selected and their npub copied); relays-details.png
// is the Relays tab after the pass with the refused relay selected,
// status-first-pass.png the Status tab as the first pass starts;
// settings-access.png is the
// Settings tab scrolled to its end, and the Look-up tab shows an account
// one person you trust distrusts and two further out agree.
// Run by packaging/screenshots.sh.
func TestWindowScreenshots(t *testing.T) {
	if os.Getenv("DTP_SCREENSHOTS") != "1" {
		t.Skip("set DTP_SCREENSHOTS=1 (packaging/screenshots.sh) to write docs/screenshots")
	}
	requireDesktop(t, "import", "xdotool")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	work := t.TempDir()

	root, evs, profiles, subject := namedWebOfTrust(time.Now().Unix() - 3600)
	total := int64(len(evs))
	events := filepath.Join(work, "events.jsonl")
	writeJSONL(t, events, evs)
	remoteDir := filepath.Join(work, "remote")
	if out, err := cliRun(t, remoteDir, "import", events); err != nil {
		t.Fatalf("import: %v %s", err, out)
	}
	remote := startServer(t, remoteDir)

	local := filepath.Join(work, "local")
	refused := "ws://" + freeAddr(t)
	for _, args := range [][]string{
		{"roots", "add", root.Pubkey},
		{"relays", "add", "ws://" + remote.addr},
		{"relays", "add", refused},                         // nobody listens: a relay in backoff, with its error
		{"relays", "add", testrelay.Start(t, profiles...)}, // the people's names (and no trust events)
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

	// The Status tab as the first pass starts: never synced yet, or the
	// pass's progress and what it stored so far.
	shot("status-first-pass")
	// The Relays tab during the start-up pass, with its bar per relay.
	relaysTab := "alt+" + strconv.Itoa(slices.Index(windowTabs, "relays")+1)
	xdotool(ctx, t, display, "key", relaysTab)
	testutil.EventuallyWithin(t, 2*time.Minute, "a relay's share of the start-up pass", func() bool {
		for _, r := range snapshot().Relays {
			if r.Progress != nil && r.Progress.Done > 0 {
				return true
			}
		}
		return false
	})
	// again: a busy machine's window may not have taken the first key yet
	xdotool(ctx, t, display, "key", relaysTab)
	time.Sleep(time.Second) // the window shows the snapshots a few times a second
	window := windowID(ctx, t, display)
	shot("relays")

	testutil.EventuallyWithin(t, 4*time.Minute, "the start-up pass to store the fixture", func() bool {
		snap := snapshot()
		return snap.Ingest.Accepted == total && snap.LastSync > 0 && snap.State != status.StateRunning
	})

	settle := func() { time.Sleep(3 * time.Second) } // the next snapshot, the look-up's answer, the names
	for i, name := range windowTabs {
		if name != "look-up" && name != "relays" {
			xdotool(ctx, t, display, "key", "alt+"+strconv.Itoa(i+1))
			settle()
			if name == "frontier" { // a person chosen: their buttons appear; Copy says so
				xdotool(ctx, t, display, "mousemove", "--window", window, "40", "525", "click", "1")
				time.Sleep(time.Second)
				xdotool(ctx, t, display, "mousemove", "--window", window, "130", "697", "click", "1")
				time.Sleep(time.Second)
			}
			shot(name)
		}
	}
	// The Relays tab after the pass, the refused relay selected: its details
	// in the pane under the table, in words, with when it is retried.
	xdotool(ctx, t, display, "key", relaysTab)
	settle()
	row := slices.IndexFunc(snapshot().Relays, func(r status.Relay) bool { return r.URL == refused })
	xdotool(ctx, t, display, "mousemove", "--window", window, "60", strconv.Itoa(141+39*row), "click", "1")
	settle()
	shot("relays-details")
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
	// the wheel over the evidence table scrolls the page down to the paths
	xdotool(ctx, t, display, "mousemove", "--window", window, "300", "570", "sleep", "0.2",
		"click", "--repeat", "8", "--delay", "150", "5")
	settle()
	shot("look-up-paths")
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

// namedWebOfTrust is fixture.WebOfTrust's 20,000 events (a root, 20 people
// it trusts, 400 they trust) with kind-0 profiles for the root and all but
// every tenth of the others, so the pictures show names and short npubs
// side by side; and a stranger, Yusuf, whom one person the root trusts
// (Dave) distrusts and two people further out distrust too: the look-up's
// subject (its npub).
func namedWebOfTrust(now int64) (root fixture.Author, events, profiles []*nostr.Event, subject string) {
	const total, fanout = 20_000, 20
	root, events = fixture.WebOfTrust(total-3, fanout, now)
	first := []string{"Dave", "Maria", "Kofi", "Lena", "Tomás", "Aiko", "Priya", "Jonas", "Fatima", "Noah",
		"Chen", "Sofia", "Omar", "Ingrid", "Ravi", "Zoe", "Mateo", "Hana", "Liam", "Amara"}
	last := []string{"Okafor", "Novak", "Silva", "Berg", "Tanaka", "Haddad", "Kowalski", "Reyes", "Lindqvist",
		"Mensah", "Duval", "Petrov", "Nguyen", "Costa", "Weber", "Park", "Moreau", "Ali", "Jensen", "Rossi", "Kaur"}
	profile := func(a fixture.Author, name string) *nostr.Event {
		content, _ := json.Marshal(map[string]string{"name": name, "display_name": name})
		return a.Sign(&nostr.Event{Kind: 0, CreatedAt: nostr.Timestamp(now), Content: string(content), Tags: nostr.Tags{}})
	}
	profiles = append(profiles, profile(root, "Alice"))
	for i := range fanout {
		profiles = append(profiles, profile(fixture.NewAuthor(1+i), first[i]))
		for j := range fanout {
			if j%10 != 9 {
				profiles = append(profiles, profile(fixture.NewAuthor(1000+i*fanout+j), first[j]+" "+last[i]))
			}
		}
	}
	yusuf := fixture.NewAuthor(5000)
	profiles = append(profiles, profile(yusuf, "Yusuf"))
	dave, farther1, farther2 := fixture.NewAuthor(1), fixture.NewAuthor(1000+3*fanout+4), fixture.NewAuthor(1000+7*fanout+2)
	for _, a := range []fixture.Author{dave, farther1, farther2} {
		events = append(events, a.Trust(fixture.P(yusuf.Pubkey), "-1", now, fixture.Content("sells followers")))
	}
	subject, err := nip19.EncodePublicKey(yusuf.Pubkey)
	if err != nil {
		panic(err)
	}
	return root, events, profiles, subject
}
