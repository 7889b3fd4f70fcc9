package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/resolver"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// fakeEngine records the commands it is given; err, if set, fails them all.
type fakeEngine struct {
	mu         sync.Mutex
	calls      []string // commands other than settings changes
	err        error
	snap       status.Snapshot
	subscriber func(status.Snapshot)
	cancelled  bool
	// settings are what Modify changed: the snapshot's until the first change.
	settings settings.Settings
	modified bool
}

// Modify applies change to the fake's settings, as the engine does (checks
// are the settings edits' own); f.err refuses every change.
func (f *fakeEngine) Modify(change func(*settings.Settings) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	s := f.settingsLocked()
	if err := change(&s); err != nil {
		return err
	}
	f.settings, f.modified = s, true
	return nil
}

// current is a copy of the fake's settings.
func (f *fakeEngine) current() settings.Settings {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.settingsLocked()
}

func (f *fakeEngine) settingsLocked() settings.Settings {
	s := f.settings
	if !f.modified {
		s = f.snap.Settings
		s.Strategy, s.IntervalMinutes, s.Paused = f.snap.Strategy, f.snap.IntervalMinutes, f.snap.Paused
	}
	for _, l := range []*[]string{&s.Roots, &s.Relays, &s.RepoSyncServices, &s.AllowedHosts, &s.AllowedOrigins} {
		*l = slices.Sorted(slices.Values(*l)) // a copy, in the store's order
	}
	return s
}

// assertSettings fails unless the fake's settings are the snapshot's with
// edit applied (nil: unchanged, and no change was made at all).
func assertSettings(t *testing.T, eng *fakeEngine, edit func(*settings.Settings)) {
	t.Helper()
	eng.mu.Lock()
	modified := eng.modified
	eng.mu.Unlock()
	if edit == nil {
		if modified {
			t.Fatalf("settings changed to %+v, want no change", eng.current())
		}
		return
	}
	want := (&fakeEngine{snap: eng.snap}).current()
	edit(&want)
	if got := eng.current(); fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) { // an empty list is a nil one
		t.Fatalf("settings\n%+v\nwant\n%+v", got, want)
	}
}

func (f *fakeEngine) record(call string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	return f.err
}

func (f *fakeEngine) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeEngine) ListenAddr() string { return "127.0.0.1:7447" }

// Network is the fixture's roots at depth 0 and, at depth 1, two people
// the first root brought in.
func (f *fakeEngine) Network(depth int) []frontier.Member {
	switch depth {
	case 0:
		return []frontier.Member{{Pubkey: rootHex}, {Pubkey: root2Hex}}
	case 1:
		return []frontier.Member{{Pubkey: aliceHex, Depth: 1, BroughtBy: rootHex}, {Pubkey: bobHex, Depth: 1, BroughtBy: rootHex}}
	}
	return nil
}

func (f *fakeEngine) DataDir() string { return "/home/user/.local/share/dtp-personal" }

func (f *fakeEngine) Backup(path string) error { return f.record("Backup " + path) }

func (f *fakeEngine) Export(context.Context, io.Writer) (int, error) { return 0, f.record("Export") }

func (f *fakeEngine) Import(context.Context, io.Reader, func(ingest.Tally)) (ingest.Tally, error) {
	return ingest.Tally{}, f.record("Import")
}

func (f *fakeEngine) Status() status.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap
}

func (f *fakeEngine) Subscribe(fn func(status.Snapshot)) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subscriber = fn
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cancelled = true
	}
}

func (f *fakeEngine) SyncNow() error { return f.record("SyncNow") }
func (f *fakeEngine) Resolve(_ context.Context, q resolver.Query) (resolver.Answer, error) {
	return resolver.Answer{Subject: q.Subject, Verdict: resolver.VerdictNone}, f.record("Resolve " + q.Subject)
}

var errRefused = errors.New("relay refused by engine")

const (
	rootHex  = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"
	rootNpub = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg"
	root2Hex = "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"
	aliceHex = "a11ce00000000000000000000000000000000000000000000000000000000001"
	bobHex   = "b0b0000000000000000000000000000000000000000000000000000000000002"
)

// fixtureNow is the fixed "now" the fixture's times are relative to.
var fixtureNow = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// fixture is a busy engine: an interval pass 42% through, one relay in
// backoff, a frontier cut by two caps, recent rejections.
func fixture() status.Snapshot {
	now := fixtureNow.Unix()
	limits := settings.DefaultLimits()
	return status.Snapshot{
		Strategy: settings.FrontierInterval, IntervalMinutes: 15,
		State:    status.StateRunning,
		Coverage: status.Coverage{State: status.StatePartial, Reasons: []string{status.ReasonFrontierTruncated, status.RelayFailed("wss://gone.example")}},
		LastSync: now - 300, NextSync: now + 600,
		Relays: []status.Relay{
			{URL: "wss://relay.damus.io", Health: status.HealthHealthy, State: status.StateRunning, Connected: true,
				LastSuccess: now - 60, EventsFetched: 123456, EventsStored: 120001, OldestReached: 1672531200, NewestReached: now - 60},
			{URL: "wss://gone.example", Health: status.HealthBackoff, State: status.StateReconnecting,
				Failures: 3, NextRetry: now + 20, LastError: "dial tcp: connection refused"},
		},
		Frontier: status.Frontier{
			Roots: []string{rootHex, root2Hex}, SessionRoots: []string{root2Hex},
			Size: 20000, ByDepth: []int{2, 150, 4800, 15048},
			Truncation: []status.Truncation{{Reason: "maxTotalAuthors", Cut: 1234}, {Reason: "maxAuthorsPerLevel", Cut: 56}},
		},
		Heap:     status.Heap{Nodes: 1234, Edges: 98765, GraphVersion: 77, NodeLimit: limits.HeapNodeLimit, EdgeLimit: limits.HeapEdgeLimit},
		Store:    status.Store{DatabaseBytes: 1_234_000_000, WALBytes: 3_100_000, WALPeakBytes: 40_000_000, WALLimitBytes: 64 << 20},
		Progress: status.Progress{Pass: "trust", Done: 420, Total: 1000, Stored: 900},
		Ingest: status.Ingest{Accepted: 5000, Duplicates: 700, Rejected: 2, AcceptedPerSec: 12.5,
			RecentRejections: []status.Rejection{
				{At: now - 30, EventID: "ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12", Source: "wss://relay.damus.io", Reason: "signature: invalid schnorr signature"},
				{At: now - 10, EventID: "ff00", Source: "ingest 127.0.0.1", Reason: "scope: scope not in profile x.com"},
			}},
		Settings: settings.Settings{Listen: "127.0.0.1:7447", ScopeProfile: "x.com", Limits: limits, Notify: true,
			Roots: []string{rootHex, root2Hex}, Relays: []string{"wss://gone.example", "wss://relay.damus.io"}},
	}
}

// withRepos is s with repository sync on: two repositories on two sync
// relays, one of them cooling down after refusing subscriptions.
func withRepos(s status.Snapshot) status.Snapshot {
	now := fixtureNow.Unix()
	s.Settings.RepoSyncServices = []string{"wss://git.example.org"}
	s.Settings.RepoSyncBootstrap = "wss://relay.ngit.dev"
	s.RepoSync = status.RepoSync{
		Enabled: true, Services: []string{"wss://git.example.org"}, Bootstrap: "wss://relay.ngit.dev",
		Repos: 2, RootEvents: 57, KeptAside: 3,
		Repositories: []status.Repository{
			{Ref: "30617:" + rootHex + ":ngit", ID: "ngit", Name: "ngit", Owner: rootHex, RootEvents: 42,
				Relays: []string{"wss://relay.ngit.dev", "wss://nos.lol"}},
			{Ref: "30617:" + root2Hex + ":dtp", ID: "dtp", Owner: root2Hex, RootEvents: 15, Relays: []string{"wss://nos.lol"}},
		},
		Relays: []status.RepoRelay{
			{URL: "wss://nos.lol", Health: status.HealthHealthy, State: status.StateLive, Connected: true,
				Filters: 14, Subscriptions: 2, Repos: 2, EventsReceived: 1234},
			{URL: "wss://relay.ngit.dev", Bootstrap: true, Health: status.HealthHealthy, State: status.StateLive,
				Connected: true, Filters: 9, Subscriptions: 1, Repos: 1, EventsReceived: 56, CoolingUntil: now + 40,
				LastError: "refused subscriptions: ERROR: too many concurrent REQs"},
		},
		MaxRelays: 200, MaxRelaysPerRepo: 10,
		RefusedByReason: map[string]int{"not-wss": 1, "per-repo-cap": 590},
		RefusedRelays: []status.RefusedRelay{
			{URL: "ws://192.168.1.1", Reason: "not-wss", Repos: 1},
			{URL: "wss://r001.example", Reason: "per-repo-cap", Repos: 1},
		},
	}
	return s
}

// newTestGUI is a GUI over a fake engine in a test app, showing the fixture
// on tab (tabStatus, tabLookup, …).
func newTestGUI(t *testing.T, tab int) (*GUI, *fakeEngine) {
	t.Helper()
	app := test.NewTempApp(t)
	eng := &fakeEngine{snap: fixture()}
	g := New(app, eng, nil)
	g.clock = clock{Now: func() time.Time { return fixtureNow }, Zone: time.UTC}
	g.onUI = uiQueue.post
	g.win.Resize(fyne.NewSize(1200, 800))
	g.tabs.SelectIndex(tab)
	g.render(fixture())
	return g, eng
}

// uiThread stands in for the desktop driver's UI thread: work posted from
// other goroutines waits until the test runs it on its own goroutine.
type uiThread struct {
	mu      sync.Mutex
	pending []func()
}

var uiQueue uiThread

func (u *uiThread) post(fn func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pending = append(u.pending, fn)
}

func (u *uiThread) run() {
	u.mu.Lock()
	work := u.pending
	u.pending = nil
	u.mu.Unlock()
	for _, fn := range work {
		fn()
	}
}

// settle waits for the engine commands in flight, then runs the UI work
// they posted.
func (g *GUI) settle() {
	g.calls.Wait()
	uiQueue.run()
}

// shownTexts is the text of every visible label and text under o, as
// currently rendered (without laying it out again).
func shownTexts(o fyne.CanvasObject) map[string]bool {
	texts := map[string]bool{}
	eachObject(o, func(obj fyne.CanvasObject) bool {
		if obj == nil || !obj.Visible() {
			return false
		}
		switch x := obj.(type) {
		case *widget.Label:
			texts[x.Text] = true
		case *canvas.Text:
			texts[x.Text] = true
		}
		return true
	})
	return texts
}

// eachObject calls visit on o, then, while visit returns true, on what o
// holds (a container's objects, a widget's rendered objects), depth first.
func eachObject(o fyne.CanvasObject, visit func(fyne.CanvasObject) bool) {
	if !visit(o) {
		return
	}
	switch x := o.(type) {
	case *fyne.Container:
		for _, child := range x.Objects {
			eachObject(child, visit)
		}
	case fyne.Widget:
		for _, child := range test.WidgetRenderer(x).Objects() {
			eachObject(child, visit)
		}
	}
}

// showTab brings tab i of the window up at the given size, drawn as a
// desktop driver would after a resize (tables fill their cells on refresh).
func (g *GUI) showTab(i int, width, height float32) {
	g.tabs.SelectIndex(i)
	g.win.Resize(fyne.NewSize(width, height))
	refreshTables(g.win.Content())
}

func refreshTables(o fyne.CanvasObject) {
	eachObject(o, func(obj fyne.CanvasObject) bool {
		if table, ok := obj.(*widget.Table); ok {
			table.Refresh()
			return false
		}
		return true
	})
}

func assertShows(t *testing.T, o fyne.CanvasObject, want ...string) {
	t.Helper()
	texts := shownTexts(o)
	for _, w := range want {
		if !texts[w] {
			t.Errorf("%q not shown; shown: %v", w, keys(texts))
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func assertCalls(t *testing.T, eng *fakeEngine, want ...string) {
	t.Helper()
	got := eng.recorded()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("engine calls = %q, want %q", got, want)
	}
}

func fyneCell(row int) widget.TableCellID { return widget.TableCellID{Row: row, Col: 0} }

// displayKeyOK is displayKey that also says whether the key converted.
func displayKeyOK(hexKey string) (string, bool) {
	k := words.Npub(hexKey)
	return k, k != hexKey
}

// assertHides checks that none of the texts is shown (closed sections hide theirs).
func assertHides(t *testing.T, o fyne.CanvasObject, hidden ...string) {
	t.Helper()
	texts := shownTexts(o)
	for _, h := range hidden {
		if texts[h] {
			t.Errorf("%q shown; it should be hidden", h)
		}
	}
}
