package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

func TestSettingsViewShowsSnapshot(t *testing.T) {
	g, _ := newTestGUI(t, tabSettings)
	v := g.settings
	if got := v.roots.rows; len(got) != 2 || got[0][0] != "you" || got[0][1] != rootNpub || got[0][2] != rootHex {
		t.Errorf("root rows = %q", got)
	}
	var shown []string
	for _, e := range v.limits {
		shown = append(shown, e.Text)
	}
	if got := strings.Join(shown, " "); got != "4 75 25 2000 20000 400000 400000 40000 1000000 5000000 30 256 64 4 64 64 64 100 100 512 200 10" { // the follow band follows the max degree; the connection, queue, tag and log caps, then the per-client request limits and the repository relay caps
		t.Errorf("limits shown = %s", got)
	}
	if v.interval.Selected != "Every 15 min" || v.listen.Text != "127.0.0.1:7447" || v.allowLAN.Checked ||
		v.scope.Text != "x.com" || v.startAtLogin.Checked || v.repoSync.Text != "off" {
		t.Errorf("interval %q listen %q lan %t scope %q login %t repo %q", v.interval.Selected, v.listen.Text,
			v.allowLAN.Checked, v.scope.Text, v.startAtLogin.Checked, v.repoSync.Text)
	}
	g.showTab(tabSettings, 1200, 1600)
	assertShows(t, v.root, rootNpub, "Start at login", "Advanced: frontier caps and heap limits")
	assertHides(t, v.root, "Max total authors") // the caps wait behind Advanced
	v.advanced.Open(0)
	g.showTab(tabSettings, 1200, 1601)
	assertShows(t, v.root, "Max total authors", "people followed in all, at most", "Small network", "Large network")
}

// The roots are you, with the root's display name once it is known; the
// names are asked for when the roots change, not at every status update.
func TestSettingsRootsAreYouByName(t *testing.T) {
	g, _ := newTestGUI(t, tabSettings)
	names := &knownNames{names: map[string]string{}}
	g.SetNames(names)
	g.last.Frontier.Roots = []string{rootHex, root2Hex}
	g.last.Settings.Roots = []string{rootHex, root2Hex}
	g.render(g.last)
	if len(names.wanted) != 1 || strings.Join(names.wanted[0], " ") != rootHex+" "+root2Hex {
		t.Fatalf("names asked for %q, want the two roots once", names.wanted)
	}
	// the fixture's wss://gone.example is in backoff: asked again when the engine's retry says so
	if !slices.Equal(names.relays, []string{"wss://relay.damus.io"}) {
		t.Errorf("names asked from %q, want the relay not in backoff", names.relays)
	}
	names.names[root2Hex] = "Alice" // her profile arrives
	names.fetched()
	g.settle()
	v := g.settings
	if got := v.roots.rows; len(got) != 2 || got[0][0] != "you" || got[1][0] != "you (Alice)" || got[1][1] != words.Npub(root2Hex) {
		t.Errorf("root rows = %q, want you and you (Alice)", got)
	}
	g.render(g.last)
	if len(names.wanted) != 1 {
		t.Errorf("names asked for again at a status update with the same roots: %q", names.wanted)
	}
	g.tabs.SelectIndex(tabFrontier)
	g.render(g.last)
	assertShows(t, g.frontier.root, rootNpub+"\nAlice: "+words.Npub(root2Hex))
}

// A preset fills the caps for the size of network followed; saving sends them.
func TestSettingsLimitPresets(t *testing.T) {
	g, eng := newTestGUI(t, tabSettings)
	v := g.settings
	v.limits[1].SetText("60")              // the follow threshold is the user's, not the preset's
	v.fillPreset(settings.LimitPresets[0]) // small
	v.saveLimits()
	v.fillPreset(settings.LimitPresets[2]) // large
	v.saveLimits()
	g.settle()
	large := settings.DefaultLimits()
	settings.LimitPresets[2].Apply(&large)
	large.FollowThreshold = 60
	assertSettings(t, eng, func(s *settings.Settings) { s.Limits = large })
}

func TestSettingsBadInputIsRefusedInline(t *testing.T) {
	g, eng := newTestGUI(t, tabSettings)
	v := g.settings

	for input, msg := range map[string]string{
		"":                               "enter an npub",
		"npub1notakey":                   "not a valid npub",
		rootNpub[:len(rootNpub)-1] + "q": "not a valid npub",
		rootHex[:62]:                     "64-character hex",
		"zz" + rootHex[2:]:               "64-character hex",
		"nsec1whatever":                  "secret key",
	} {
		v.rootForm.entry.SetText(input)
		v.rootForm.submit()
		if got := v.rootForm.err.text(); !strings.Contains(got, msg) {
			t.Errorf("root %q: error %q, want %q", input, got, msg)
		}
	}

	v.limits[0].SetText("9") // deeper than the hard cap
	v.saveLimits()
	if got := v.limitsError.text(); got != "Max degree: enter a whole number from 1 to 5" {
		t.Errorf("depth 9: error %q", got)
	}
	v.limits[0].SetText("4")
	v.limits[2].SetText("101")
	v.saveLimits()
	if got := v.limitsError.text(); got != "Distrusted below (%): enter a whole number from 0 to 100" {
		t.Errorf("red 101: error %q", got)
	}
	v.limits[2].SetText("25")
	v.limits[4].SetText("lots")
	v.saveLimits()
	if got := v.limitsError.text(); !strings.HasPrefix(got, "Max total authors:") {
		t.Errorf("bad total authors: error %q", got)
	}

	for input, msg := range map[string]string{
		"localhost":       "host:port",
		":7447":           "enter a host",
		"127.0.0.1:99999": "port must be",
		"127.0.0.1:http":  "port must be",
	} {
		v.listen.SetText(input)
		v.applyListen()
		if got := v.listenError.text(); !strings.Contains(got, msg) {
			t.Errorf("listen %q: error %q, want %q", input, got, msg)
		}
	}
	v.scope.SetText("x.com/evil path")
	v.applyScope()
	if v.scopeError.text() == "" {
		t.Error("a scope with spaces was accepted")
	}
	g.settle()
	assertSettings(t, eng, nil)
}

func TestSettingsCommands(t *testing.T) {
	g, eng := newTestGUI(t, tabSettings)
	v := g.settings

	// settle after each step: a command's result updates the form.
	v.rootForm.entry.SetText(" " + rootNpub + " ")
	v.rootForm.submit()
	g.settle()
	v.rootForm.entry.SetText(strings.ToUpper(root2Hex))
	v.rootForm.submit()
	g.settle()
	v.roots.table.Select(fyneCell(1))
	test.Tap(v.removeRoot)
	g.settle()

	v.limits[0].SetText("3")
	v.limits[3].SetText("1,500")
	v.saveLimits()
	g.settle()

	v.interval.SetSelected("Every 60 min")
	v.listen.SetText("0.0.0.0:7447")
	v.allowLAN.SetChecked(true)
	v.applyListen()
	g.settle()
	v.scope.SetText("x.com")
	v.applyScope()
	g.settle()
	v.startAtLogin.SetChecked(true)
	g.settle()

	assertSettings(t, eng, func(s *settings.Settings) {
		s.Roots = []string{rootHex} // the npub was a root already; root2's hex was one too, and was removed
		s.Limits.MaxDepth, s.Limits.MaxAuthorsPerLevel = 3, 1500
		s.IntervalMinutes, s.Listen, s.AllowLAN, s.StartAtLogin = 60, "0.0.0.0:7447", true, true
	})
	if v.rootForm.entry.Text != "" || v.limitsError.text() != "" || v.listenError.text() != "" {
		t.Errorf("after success: root entry %q, limits error %q, listen error %q",
			v.rootForm.entry.Text, v.limitsError.text(), v.listenError.text())
	}
}

func TestSettingsKeepsTypingAcrossUpdates(t *testing.T) {
	g, _ := newTestGUI(t, tabSettings)
	v := g.settings
	v.listen.SetText("192.168.1.5:7447") // being edited
	s := fixture()
	s.Settings.Limits.MaxDepth = 2
	s.Settings.Listen = "127.0.0.1:8000"
	g.render(s)
	if v.listen.Text != "192.168.1.5:7447" {
		t.Errorf("an update overwrote the edited listen address with %q", v.listen.Text)
	}
	if v.limits[0].Text != "2" {
		t.Errorf("an unedited field did not follow the engine: %q", v.limits[0].Text)
	}
	// Once the engine holds what was typed, the field follows the engine again.
	s.Settings.Listen = "192.168.1.5:7447"
	g.render(s)
	s.Settings.Listen = "127.0.0.1:9000"
	g.render(s)
	if v.listen.Text != "127.0.0.1:9000" {
		t.Errorf("listen = %q, want it to follow the engine again", v.listen.Text)
	}
}

func TestStartFollowsEngineSnapshots(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	// A queue of its own: other tests' GUIs still post to the shared one
	// (a hidden page built late), which a loaded machine made count here.
	var thread uiThread
	g.onUI = thread.post
	eng.snap.State = status.StateLive
	g.Start()
	eng.mu.Lock()
	push := eng.subscriber
	eng.mu.Unlock()
	if push == nil {
		t.Fatal("Start did not subscribe")
	}
	for i := range 200 { // a burst while the UI thread is busy: it renders the latest, once
		s := fixture()
		s.Heap.GraphVersion = uint64(1000 + i)
		push(s)
	}
	thread.mu.Lock()
	queued := len(thread.pending)
	thread.mu.Unlock()
	if queued != 1 {
		t.Errorf("%d renders handed to the UI thread for a burst it had not caught up with, want 1", queued)
	}
	g.Stop()
	g.calls.Wait()
	thread.run()
	if got := g.status.graphVersion.Text; got != "1199" {
		t.Errorf("graph version shown = %s, want the last pushed 1199", got)
	}
}

// Before the app loop runs, fyne.Do runs its function at once, as this
// onUI does: Start renders the current status then (and does not deadlock).
func TestStartBeforeTheAppLoopRuns(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	g.onUI = func(f func()) { f() }
	s := fixture()
	s.Heap.GraphVersion = 1
	g.render(s)
	g.Start()
	defer g.Stop()
	if got := g.status.graphVersion.Text; got != "77" {
		t.Errorf("graph version %s shown after Start, want the engine's 77", got)
	}
}

// Snapshots closer together than renderInterval wait: the next render,
// of the latest of them, comes an interval after the one before.
func TestRendersAtMostOncePerInterval(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	g.Start()
	defer g.Stop()
	uiQueue.run()
	eng.mu.Lock()
	push := eng.subscriber
	eng.mu.Unlock()
	started := time.Now()
	for _, version := range []uint64{5, 6} {
		s := fixture()
		s.Heap.GraphVersion = version
		push(s)
	}
	uiQueue.run()
	if got := g.status.graphVersion.Text; got != "77" {
		t.Errorf("graph version %s rendered right after the render before", got)
	}
	waitForUI(t, "the latest snapshot", func() bool { return g.status.graphVersion.Text == "6" })
	if waited := time.Since(started); waited < renderInterval/2 {
		t.Errorf("the latest snapshot was rendered after %v, want about %v", waited, renderInterval)
	}
}

func TestSettingsAccessRules(t *testing.T) {
	g, eng := newTestGUI(t, tabSettings)
	v := g.settings
	s := fixture()
	s.Settings.AllowedHosts = []string{"relay.example.com"}
	s.Settings.AllowedOrigins = []string{"https://app.example"}
	g.render(s)
	if len(v.hosts.table.rows) != 1 || len(v.origins.table.rows) != 1 {
		t.Errorf("hosts %q, origins %q", v.hosts.table.rows, v.origins.table.rows)
	}
	g.showTab(tabSettings, 1200, 2400)
	assertShows(t, v.root, "relay.example.com", "https://app.example", "Allowed host", "Allowed origin")

	// refused inline by the engine's own rules, nothing sent
	for editor, bad := range map[*listEditor][2]string{
		v.hosts:   {"https://relay.example.com", "is a URL"},
		v.origins: {"https://app.example/page", "without path"},
	} {
		editor.form.entry.SetText(bad[0])
		test.Tap(editor.form.button)
		if got := editor.form.err.text(); !strings.Contains(got, bad[1]) {
			t.Errorf("%q: inline error %q, want %q", bad[0], got, bad[1])
		}
	}
	g.settle()
	assertSettings(t, eng, nil)

	v.hosts.form.entry.SetText(" Proxy.Example.ORG. ")
	test.Tap(v.hosts.form.button)
	v.origins.form.entry.SetText("HTTPS://Web.Example:443")
	test.Tap(v.origins.form.button)
	v.hosts.table.table.Select(fyneCell(0))
	test.Tap(v.hosts.remove)
	v.origins.table.table.Select(fyneCell(0))
	test.Tap(v.origins.remove)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) {
		s.AllowedHosts, s.AllowedOrigins = []string{"proxy.example.org"}, []string{"https://web.example"}
	})
}
