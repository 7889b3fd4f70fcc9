package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
	"dtp-personal/ui/words"
)

func TestStatusViewShowsSnapshot(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	v := g.status
	checks := map[string]string{
		"state":         v.state.Text,
		"coverage":      v.coverage.Text,
		"reasons":       v.reasons.Text,
		"last sync":     v.lastSync.Text,
		"next sync":     v.nextSync.Text,
		"interval":      v.period.Text,
		"heap nodes":    v.nodes.Text,
		"heap edges":    v.edges.Text,
		"heap limit":    v.heapLimit.Text,
		"graph version": v.graphVersion.Text,
		"wal":           v.wal.Text,
		"strategy":      v.strategy.Selected,
		"pause button":  v.pause.Text,
	}
	want := map[string]string{
		"state":    "syncing: 420 of 1,000 authors (trust pass) · 900 events stored so far",
		"coverage": "partial",
		"reasons": "• your network cut by maxTotalAuthors (1,234 not followed), maxAuthorsPerLevel (56 not followed)\n" +
			"• relay wss://gone.example: unreachable: connection refused — retrying with the next pass, 15 min after this one",
		"last sync":     "5 min ago (11:55)",
		"next sync":     "15 min after this pass ends",
		"interval":      "Every 15 min",
		"heap nodes":    "1,234 of 1,000,000",
		"heap edges":    "98,765 of 5,000,000",
		"heap limit":    "not reached",
		"graph version": "77",
		"wal":           "3.1 MB of at most 64 MiB (largest 40.0 MB), beside a database of 1.2 GB",
		"strategy":      "Interval (trusted network)",
		"pause button":  "Pause sync",
	}
	for k, w := range want {
		if checks[k] != w {
			t.Errorf("%s = %q, want %q", k, checks[k], w)
		}
	}
	g.tabs.SelectIndex(tabStatus)
	assertShows(t, g.win.Content(), "Subscribe all", "syncing: 420 of 1,000 authors (trust pass) · 900 events stored so far",
		"Next sync", "Diagnostics", "20,000 people in your web of trust · 98,765 statements · syncing · updated 5 min ago")
	// the engine's figures are under Diagnostics, closed until opened
	assertHides(t, g.win.Content(), "Graph version")
	v.diagnostics.Open(0)
	assertShows(t, g.win.Content(), "Graph version")

	s := fixture()
	s.Paused, s.Strategy, s.State = true, settings.GlobalContinuous, status.StateLive
	s.Heap.LimitReason = "heap-node-limit"
	g.render(s)
	if v.pause.Text != "Resume sync" || v.state.Text != "paused" || v.heapLimit.Text != "reached: heap-node-limit" ||
		v.strategy.Selected != "Subscribe all" || v.period.Text != "— (continuous strategy)" {
		t.Errorf("paused live snapshot shown as pause=%q state=%q heap=%q strategy=%q interval=%q",
			v.pause.Text, v.state.Text, v.heapLimit.Text, v.strategy.Selected, v.period.Text)
	}
	// a continuous strategy's next scheduled pass is the daily full refresh
	assertShows(t, g.win.Content(), "Next full refresh")
	// a setting taken only at the start says it waits for one, and only then
	const waits = "Saved: the listen address takes effect when dtp-personal starts again."
	assertHides(t, g.win.Content(), waits)
	s.RestartNeeded = []string{"listen address"}
	g.render(s)
	assertShows(t, g.win.Content(), waits)
	s.RestartNeeded = nil
	g.render(s)
	assertHides(t, g.win.Content(), waits)
	g.settle()
	assertCalls(t, eng) // showing the engine's state is not a command
	assertSettings(t, eng, nil)
}

func TestStatusViewCommands(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	g.status.strategy.SetSelected(settings.StrategyLabel(settings.FrontierContinuous))
	test.Tap(g.status.syncNow)
	test.Tap(g.status.pause)
	g.settle()
	assertCalls(t, eng, "SyncNow")
	assertSettings(t, eng, func(s *settings.Settings) { s.Strategy, s.Paused = settings.FrontierContinuous, true })
}

func TestStatusViewStrategyFailureRevertsChoice(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	eng.err = errRefused
	g.status.strategy.SetSelected(settings.StrategyLabel(settings.GlobalContinuous))
	g.settle()
	if got := g.status.strategy.Selected; got != settings.StrategyLabel(settings.FrontierInterval) {
		t.Errorf("after a refused switch the radio shows %q, want the engine's strategy", got)
	}
	if got := g.notice.text(); !strings.Contains(got, errRefused.Error()) {
		t.Errorf("notice = %q, want the engine's error", got)
	}
}

func TestRelaysViewShowsHealthAndProgress(t *testing.T) {
	g, _ := newTestGUI(t, tabRelays)
	v := g.relays
	if len(v.table.rows) != 2 {
		t.Fatalf("%d relay rows, want 2", len(v.table.rows))
	}
	// a pass runs: the failed relay waits for the next one
	retrying := "unreachable: connection refused — retrying with the next pass, 15 min after this one"
	wantRows := [][]string{
		{"wss://relay.damus.io", "connected", "123,456", "120,001", "1 min ago"},
		{"wss://gone.example", retrying, "0", "0", "never"},
	}
	for i, want := range wantRows {
		if got := v.table.rows[i]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, got, want)
		}
	}
	// at the window's usual width every column is in view, every title whole
	g.showTab(tabRelays, 1040, 500)
	assertShows(t, v.root, "Relay", "Status", "Events received", "Stored (new)", "Last success", "wss://relay.damus.io",
		retrying, "123,456")

	// the details pane says to select a relay, then shows the selected one
	// in full, times exact beside their short form, and no line under the table
	assertShows(t, v.root, "Select a relay to see its details.")
	v.table.table.Select(fyneCell(0))
	g.showTab(tabRelays, 1040, 700)
	assertShows(t, v.pane.root, "wss://relay.damus.io", "Status", "connected", "Last success", "1 min ago (2026-03-14 11:59)",
		"Oldest reached", "2023-01-01 00:00", "Health", "fine", "Full refresh", "not done yet",
		"Events stored (new to us)", "120,001")
	assertHides(t, v.root, "Select a relay to see its details.", "Relay: wss://relay.damus.io  ·  Status: connected")
	if v.table.detail.Visible() || v.pane.rawError.Visible() {
		t.Errorf("line under the table shown %t, raw error shown %t for a healthy relay", v.table.detail.Visible(), v.pane.rawError.Visible())
	}
	// the raw error and the retry are in the failed relay's details, and
	// follow the snapshots
	v.table.table.Select(fyneCell(1))
	g.showTab(tabRelays, 1040, 701)
	assertShows(t, v.pane.root, "wss://gone.example", "3", "retrying with the next pass, 15 min after this one",
		"Last error, as the connection reported it: dial tcp: connection refused")
	s := fixture()
	s.Relays[1].Failures = 4
	g.render(s)
	g.showTab(tabRelays, 1040, 702)
	assertShows(t, v.pane.root, "4")
	v.table.table.UnselectAll()
	v.table.choose("")
	g.showTab(tabRelays, 1040, 703)
	assertShows(t, v.root, "Select a relay to see its details.")
}

// During a pass each relay in it has a bar (authors done of the family's
// total, oldest reached); the bars follow the snapshots and go when the
// pass ends.
func TestRelaysViewShowsPassProgressPerRelay(t *testing.T) {
	g, _ := newTestGUI(t, tabRelays)
	v := g.relays
	g.showTab(tabRelays, 1040, 600)
	s := fixture()
	for _, step := range []struct {
		name     string
		progress []*status.Progress // per fixture relay
		texts    []string
		done, of []float64
	}{
		{name: "no pass"},
		{
			name:     "trust pass on both relays",
			progress: []*status.Progress{{Pass: "trust", Done: 12, Total: 40}, {Pass: "trust", Total: 40}},
			texts:    []string{"trust 12 of 40 authors · oldest reached 2023-01-01", "trust 0 of 40 authors"},
			done:     []float64{12, 0}, of: []float64{40, 40},
		},
		{
			name:     "one relay left the pass, the other moved on",
			progress: []*status.Progress{{Pass: "discovery", Done: 30, Total: 120}, nil},
			texts:    []string{"discovery 30 of 120 X accounts · oldest reached 2023-01-01"},
			done:     []float64{30}, of: []float64{120},
		},
		{name: "pass over"},
	} {
		for i := range s.Relays {
			s.Relays[i].Progress = nil
			if i < len(step.progress) {
				s.Relays[i].Progress = step.progress[i]
			}
		}
		g.render(s)
		bars := v.pass.bars
		if v.inPass.Visible() != (len(step.texts) > 0) || len(bars) != len(step.texts) {
			t.Fatalf("%s: pass card shown %t with %d bars, want %d", step.name, v.inPass.Visible(), len(bars), len(step.texts))
		}
		for i, want := range step.texts {
			if got := v.pass.texts[i].Text; got != want || bars[i].Value != step.done[i] || bars[i].Max != step.of[i] {
				t.Errorf("%s: bar %d shows %q at %v of %v, want %q at %v of %v",
					step.name, i, got, bars[i].Value, bars[i].Max, want, step.done[i], step.of[i])
			}
			if got := v.pass.labels[i].Text; got != s.Relays[i].URL {
				t.Errorf("%s: bar %d is labelled %q, want %q", step.name, i, got, s.Relays[i].URL)
			}
		}
		if len(step.texts) > 0 {
			assertShows(t, v.root, step.texts...)
		}
	}
}

func TestAddInvalidRelayShowsErrorAndCallsNothing(t *testing.T) {
	g, eng := newTestGUI(t, tabRelays)
	v := g.relays
	for input, msg := range map[string]string{
		"":                        "enter a relay URL",
		"https://relay.example":   "ws:// or wss://",
		"relay.example.com":       "ws:// or wss://",
		"wss://":                  "no host",
		"wss://me:pw@relay.x":     "user name",
		"wss://relay.example/#me": "fragment",
	} {
		v.form.entry.SetText(input)
		test.Tap(v.form.button)
		g.settle()
		if got := v.form.err.text(); !strings.Contains(got, msg) {
			t.Errorf("input %q: inline error %q, want it to mention %q", input, got, msg)
		}
		if v.form.entry.Text != input {
			t.Errorf("input %q was changed to %q", input, v.form.entry.Text)
		}
	}
	assertSettings(t, eng, nil)
}

func TestAddRelayCallsEngineAndShowsItsError(t *testing.T) {
	g, eng := newTestGUI(t, tabRelays)
	v := g.relays
	v.form.err.set("old message")
	v.form.entry.SetText("  wss://relay.example.com  ")
	test.Tap(v.form.button)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) { s.Relays = append(s.Relays, "wss://relay.example.com") })
	if v.form.entry.Text != "" || v.form.err.text() != "" || v.form.button.Disabled() {
		t.Errorf("after success: entry %q, error %q, add disabled %t", v.form.entry.Text, v.form.err.text(), v.form.button.Disabled())
	}

	eng.err = errRefused
	v.form.entry.SetText("wss://bad.example")
	test.Tap(v.form.button)
	g.settle()
	if v.form.err.text() != errRefused.Error() || v.form.entry.Text != "wss://bad.example" {
		t.Errorf("after refusal: error %q, entry %q", v.form.err.text(), v.form.entry.Text)
	}
}

func TestRemoveSelectedRelay(t *testing.T) {
	g, eng := newTestGUI(t, tabRelays)
	v := g.relays
	if v.remove.Visible() {
		t.Fatal("remove is shown with no relay selected")
	}
	v.table.table.Select(fyneCell(1))
	if !v.remove.Visible() || v.remove.Text != "Remove wss://gone.example" {
		t.Fatalf("after selecting row 1: remove shown=%t text=%q", v.remove.Visible(), v.remove.Text)
	}
	// The selection follows its relay when the rows move, and goes when it goes.
	s := fixture()
	s.Relays[0], s.Relays[1] = s.Relays[1], s.Relays[0]
	g.render(s)
	if v.remove.Text != "Remove wss://gone.example" {
		t.Fatalf("after reorder: remove text %q", v.remove.Text)
	}
	test.Tap(v.remove)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) { s.Relays = []string{"wss://relay.damus.io"} })

	s.Relays = s.Relays[1:]
	g.render(s)
	if v.remove.Visible() {
		t.Error("remove still shown after the selected relay left the list")
	}
}

// Each cap that cut says what it is, with its value and its setting's name,
// and what it left out.
func TestCapCutSaysWhatWasLeftOut(t *testing.T) {
	l := settings.DefaultLimits()
	l.MaxDepth, l.MaxEvents, l.HeapNodeLimit = 3, 400_000, 1_000_000
	for _, c := range []struct {
		t          status.Truncation
		what, left string
	}{
		{status.Truncation{Reason: status.ReasonMaxTotalAuthors, Cut: 312}, "the walk stopped at 20,000 people (maxTotalAuthors)", "312 not followed"},
		{status.Truncation{Reason: status.ReasonMaxDepth, Cut: 1}, "the walk stops 3 hops from you (maxDepth)", "1 not followed"},
		{status.Truncation{Reason: status.ReasonHeapNodeLimit, Cut: 9}, "the trust graph in memory is full at 1,000,000 people and subjects (heapNodeLimit)", "9 not followed"},
		{status.Truncation{Reason: status.ReasonMaxEvents, Cut: 40}, "a pass fetches at most 400,000 trust statements (maxEvents)", "40 people not fully fetched"},
		{status.Truncation{Reason: status.ReasonMaxDiscoveryEvents, Cut: 1}, "a pass fetches at most 40,000 statements to find who owns an X account (maxDiscoveryEvents)", "1 X account not fully searched"},
	} {
		if what, left := words.CapCut(c.t, l); what != c.what || left != c.left {
			t.Errorf("words.CapCut(%s) = %q, %q; want %q, %q", c.t.Reason, what, left, c.what, c.left)
		}
	}
}

func TestFrontierViewShowsRootsDepthsAndTruncation(t *testing.T) {
	g, _ := newTestGUI(t, tabFrontier)
	v := g.frontier
	root2, _ := displayKeyOK(root2Hex)
	if want := rootNpub + "\n" + root2; v.roots.Text != want {
		t.Errorf("roots = %q, want %q", v.roots.Text, want)
	}
	if v.size.Text != "20,000 people" || v.sessionRoots.Text != "1 person whose networks connected apps asked for (while they stay connected)" {
		t.Errorf("size %q, session roots %q", v.size.Text, v.sessionRoots.Text)
	}
	if b := v.byDepth.rows; len(b.bars) != 4 || b.labels[3].Text != "3 hops from you (cut)" || b.bars[3].Value != 15048 ||
		b.bars[3].Max != 15048 || b.bars[1].Value != 150 || !v.byDepth.cut.Visible() {
		t.Errorf("by depth: %d bars, last %q %v of %v, cut shown %t", len(b.bars), b.labels[3].Text,
			b.bars[3].Value, b.bars[3].Max, v.byDepth.cut.Visible())
	}
	if got := v.truncation.rows; len(got) != 2 || got[0][0] != "the walk stopped at 20,000 people (maxTotalAuthors)" ||
		got[0][1] != "1,234 not followed" || got[1][0] != "the walk takes at most 2,000 people at each hop (maxAuthorsPerLevel)" {
		t.Errorf("truncation rows = %q", got)
	}
	if v.truncation.none.Visible() {
		t.Error("'not cut' shown while the walk was cut")
	}
	g.showTab(tabFrontier, 1000, 700)
	assertShows(t, v.root, rootNpub+"\n"+root2, "the walk takes at most 2,000 people at each hop (maxAuthorsPerLevel)",
		"56 not followed", "15,048 people", "you", "3 hops from you (cut)")

	s := fixture()
	s.Frontier = status.Frontier{}
	g.render(s)
	if !v.truncation.none.Visible() || v.truncation.table.Visible() || len(v.truncation.rows) != 0 || !strings.HasPrefix(v.roots.Text, "no root yet") {
		t.Errorf("empty frontier: notCut visible %t, rows %q, roots %q", v.truncation.none.Visible(), v.truncation.rows, v.roots.Text)
	}
	if len(v.byDepth.rows.bars) != 0 || len(v.byDepth.rows.root.Objects) != 0 || v.byDepth.cut.Visible() {
		t.Errorf("empty frontier: %d bars, cut shown %t", len(v.byDepth.rows.bars), v.byDepth.cut.Visible())
	}
}

func TestActivityViewShowsProgressAndRejections(t *testing.T) {
	g, _ := newTestGUI(t, tabActivity)
	v := g.activity
	if v.progress.Value != 420 || v.progress.Max != 1000 {
		t.Errorf("progress bar %v of %v, want 420 of 1000", v.progress.Value, v.progress.Max)
	}
	if v.pass.Text != "trust pass: 420 of 1,000 authors done · 900 events stored so far" || v.rate.Text != "12.5 events/s" || v.accepted.Text != "5,000" ||
		v.duplicates.Text != "700" || v.rejected.Text != "2" {
		t.Errorf("pass %q rate %q accepted %q duplicates %q rejected %q",
			v.pass.Text, v.rate.Text, v.accepted.Text, v.duplicates.Text, v.rejected.Text)
	}
	want := [][]string{
		{"2026-03-14 11:59", "ab12cd34ef56ab12…", "wss://relay.damus.io", "signature: invalid schnorr signature"},
		{"2026-03-14 11:59", "ff00", "ingest 127.0.0.1", "scope: scope not in profile x.com"},
	}
	for i := range want {
		if strings.Join(v.rejections.rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("rejection row %d = %q, want %q", i, v.rejections.rows[i], want[i])
		}
	}
	g.showTab(tabActivity, 1000, 700)
	assertShows(t, v.root, "signature: invalid schnorr signature", "Rule")

	s := fixture()
	s.Progress.Stored = 1150 // the engine's count of the pass
	g.render(s)
	if want := "trust pass: 420 of 1,000 authors done · 1,150 events stored so far"; v.pass.Text != want {
		t.Errorf("pass = %q, want %q", v.pass.Text, want)
	}
	s.Progress.EventsPerSecond, s.Progress.SecondsLeft = 8120.4, 130 // the engine's pace, once it knows it
	g.render(s)
	if want := "trust pass: 420 of 1,000 authors done · 1,150 events stored so far · 8,120 events/s · about 2 min left"; v.pass.Text != want {
		t.Errorf("pass = %q, want %q", v.pass.Text, want)
	}
	s.Progress, s.State = status.Progress{}, status.StateIdle
	g.render(s)
	if v.progress.Visible() || v.pass.Text != "No pass running" {
		t.Errorf("idle: progress bar shown %t, pass %q", v.progress.Visible(), v.pass.Text)
	}
}

// Snapshots update the selected tab only; another tab shows the latest
// snapshot as soon as it is selected, and the tray follows whatever the tab.
func TestHiddenTabsCatchUpWhenSelected(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	host := &recordingTray{}
	g.AttachTray(host)
	s := fixture()
	s.Ingest.Accepted = 98765
	s.Heap.GraphVersion = 4321
	s.State = status.StateLive
	s.Coverage = status.Coverage{State: status.StateComplete}
	g.render(s)
	if got := g.status.graphVersion.Text; got != "4321" {
		t.Errorf("selected tab shows graph version %q, want 4321", got)
	}
	if got := g.activity.accepted.Text; got == "98,765" {
		t.Error("a hidden tab was updated")
	}
	if last := host.statuses[len(host.statuses)-1]; !strings.Contains(last, "live") {
		t.Errorf("tray state %q did not follow while the Status tab was shown", last)
	}
	g.tabs.SelectIndex(tabActivity)
	if got := g.activity.accepted.Text; got != "98,765" {
		t.Errorf("Activity tab shows %q accepted once selected, want 98,765", got)
	}
}

func TestStateLabel(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	base := fixture()
	cases := []struct {
		name   string
		change func(*status.Snapshot)
		want   string
	}{
		{"syncing", func(*status.Snapshot) {}, "syncing: 420 of 1,000 authors (trust pass)"},
		{"syncing without total", func(s *status.Snapshot) { s.Progress.Total = 0 }, "syncing"},
		{"live", func(s *status.Snapshot) { s.State, s.Coverage = status.StateLive, status.Coverage{State: "complete"} }, "live on 1 of 2 relays"},
		{"live, partial", func(s *status.Snapshot) { s.State = status.StateLive },
			"live on 1 of 2 relays — partial: your network cut by maxTotalAuthors (1,234 not followed), maxAuthorsPerLevel (56 not followed) (+1 more)"},
		{"reconnecting", func(s *status.Snapshot) {
			s.State, s.Coverage = status.StateReconnecting, status.Coverage{State: "complete"}
		},
			"reconnecting (1 of 2 relays up)"},
		{"partial pass", func(s *status.Snapshot) { s.State, s.Coverage.Reasons = status.StatePartial, s.Coverage.Reasons[1:] },
			"partial: relay wss://gone.example: unreachable: connection refused — retrying with the next pass at 12:10"},
		{"error", func(s *status.Snapshot) {
			s.State = status.StateError
			s.Coverage.Reasons = []string{"database locked"}
		}, "error: database locked"},
		{"disk full among other reasons", func(s *status.Snapshot) {
			s.State = status.StateError
			s.Coverage = status.NewCoverage(status.ReasonClaimsPending, status.ReasonDiskFull, status.ReasonNeverSynced)
		}, "error: disk full (+2 more)"},
		{"paused", func(s *status.Snapshot) { s.Paused = true }, "paused"},
		{"not started", func(s *status.Snapshot) { *s = status.Snapshot{} }, "starting"},
	}
	for _, c := range cases {
		s := base
		s.Coverage.Reasons = append([]string(nil), base.Coverage.Reasons...)
		c.change(&s)
		if got := stateLabel(s, g.clock); got != c.want {
			t.Errorf("%s: stateLabel = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 1000000: "1,000,000"} {
		if got := words.Count(n); got != want {
			t.Errorf("words.Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTrayCommandFailureShowsInNoticeUntilNextSuccess(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	eng.err = errRefused
	test.Tap(g.status.syncNow)
	g.settle()
	if got := g.notice.text(); got != "Sync now: "+errRefused.Error() {
		t.Fatalf("notice = %q", got)
	}
	eng.err = nil
	test.Tap(g.status.syncNow)
	g.settle()
	if got := g.notice.text(); got != "" {
		t.Fatalf("notice after a success = %q", got)
	}
}

func TestAltDigitSelectsTab(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	g.win.Canvas().(interface{ TypedShortcut(fyne.Shortcut) }).TypedShortcut(tabShortcut(tabActivity))
	if got := g.tabs.SelectedIndex(); got != tabActivity {
		t.Errorf("Alt+5 selected tab %d, want Activity (%d)", got, tabActivity)
	}
}

// Alt+N and Ctrl+L work while an entry has the focus, where the desktop
// driver hands every shortcut to the focused widget; the entry keeps its
// own shortcuts.
func TestWindowShortcutsWorkFromAnEntry(t *testing.T) {
	g, _ := newTestGUI(t, tabRelays)
	c := g.win.Canvas()
	typeShortcut := func(s fyne.Shortcut) { c.Focused().(fyne.Shortcutable).TypedShortcut(s) }

	c.Focus(g.relays.form.entry)
	typeShortcut(tabShortcut(tabActivity))
	if got := g.tabs.SelectedIndex(); got != tabActivity {
		t.Errorf("Alt+5 in the relay entry selected tab %d, want Activity (%d)", got, tabActivity)
	}

	g.tabs.SelectIndex(tabSettings)
	c.Focus(g.settings.listen.entry)
	typeShortcut(lookupShortcut)
	if got := g.tabs.SelectedIndex(); got != tabLookup || c.Focused() != g.lookup.subject {
		t.Errorf("Ctrl+L in the listen entry: tab %d, focus on %T, want the look-up entry", got, c.Focused())
	}

	g.lookup.subject.SetText("npub1abc")
	typeShortcut(&fyne.ShortcutSelectAll{})
	if got := g.lookup.subject.SelectedText(); got != "npub1abc" {
		t.Errorf("Ctrl+A in the look-up entry selected %q", got)
	}
}

// A failed relay's retry is never said as a time that has passed (issue
// 31: "retrying now" stayed for minutes, the details pane showed a next
// retry in the past): an interval pass tries the relays due when it starts,
// so a relay past its retry time waits for the next pass, and the table,
// the details pane and the coverage reason all say when that is.
func TestRetryTimeIsNeverInThePast(t *testing.T) {
	g, _ := newTestGUI(t, tabRelays)
	s := fixture()
	s.State, s.Progress = status.StatePartial, status.Progress{} // between passes
	s.Relays[1].NextRetry = fixtureNow.Unix() - 600
	g.render(s)
	g.relays.table.table.Select(fyneCell(1))
	want := "unreachable: connection refused — retrying with the next pass at 12:10"
	if got := g.relays.table.rows[1][1]; got != want {
		t.Errorf("relay's status = %q, want %q", got, want)
	}
	if got := g.relays.pane.values["Next retry"].Text; got != "retrying with the next pass at 12:10" {
		t.Errorf("details pane's next retry = %q", got)
	}
	if got := words.FactsOf(s, g.clock).Reason(status.RelayFailed("wss://gone.example")); got != "relay wss://gone.example: "+want {
		t.Errorf("coverage reason = %q", got)
	}
	// during a pass the next one is not scheduled yet: it waits for it
	s = fixture()
	s.NextSync = fixtureNow.Unix() - 60
	s.Relays[1].NextRetry = fixtureNow.Unix() - 2
	g.render(s)
	if got := g.relays.table.rows[1][1]; got != "unreachable: connection refused — retrying with the next pass, 15 min after this one" {
		t.Errorf("relay's status during a pass = %q", got)
	}
	g.showTab(tabStatus, 1200, 800)
	if got := g.status.nextSync.Text; got != "15 min after this pass ends" {
		t.Errorf("next sync during a pass = %q", got)
	}
}

// Before the first pass every line says so (issue 31: "Last sync 7 s ago"
// before any sync): the engine reports no last sync until a pass ran with a
// relay (TestNoRelayPassIsNoSync), and the window says never.
func TestStatusBeforeTheFirstPass(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	s := fixture()
	s.LastSync, s.NextSync, s.Frontier.Size, s.Heap.Edges, s.State = 0, 0, 1, 1, status.StateLive
	s.Coverage = status.Coverage{State: status.StateComplete}
	g.render(s)
	if got, want := g.status.summary.Text, "1 person in your web of trust · 1 statement · live on 1 of 2 relays · last sync: never"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if got := g.status.lastSync.Text; got != "never" {
		t.Errorf("last sync = %q", got)
	}
	if got := g.status.nextSync.Text; got != "not scheduled" {
		t.Errorf("next sync = %q", got)
	}
	// the first pass's count is the engine's, the one count of the pass
	s.State, s.Progress = status.StateRunning, status.Progress{Pass: "trust", Done: 3, Total: 40, Stored: 71}
	g.render(s)
	if got := g.status.state.Text; got != "syncing: 3 of 40 authors (trust pass) · 71 events stored so far" {
		t.Errorf("state during the first pass = %q", got)
	}
}

func TestTrayTitleStaysShort(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	s := fixture()
	s.State = status.StatePartial
	if got := trayTitle(s, g.clock); len([]rune(got)) > trayTitleMax || !strings.HasSuffix(got, "…") {
		t.Errorf("tray title %q (%d characters), want at most %d, cut with …", got, len([]rune(got)), trayTitleMax)
	}
}

// The Status tab says how a client connects and what it can do there, and
// each strategy's explanation sits under its own choice.
func TestStatusViewShowsHowToConnectAClient(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	g.showTab(tabStatus, 1040, 1400)
	assertShows(t, g.win.Content(), "Use it with your client", "ws://127.0.0.1:7447")
	for i, id := range settings.Strategies {
		choice := g.status.strategy.choices[i]
		help := strategyHelp(id)
		if help == "" {
			t.Errorf("strategy %s has no help", id)
		}
		assertShows(t, g.status.strategy.root.Objects[i], settings.StrategyLabel(id), help)
		below := choice.Position().Y + choice.Size().Height
		for _, o := range g.status.strategy.root.Objects[i].(*fyne.Container).Objects[1:] {
			if o.Position().Y < below {
				t.Errorf("%s: its help is not under its choice", id)
			}
		}
	}
	test.Tap(g.status.client.copy)
	if got := g.app.Clipboard().Content(); got != "ws://127.0.0.1:7447" {
		t.Errorf("copied %q", got)
	}
	published := false
	for text := range shownTexts(g.win.Content()) {
		published = published || strings.Contains(text, "This app never publishes anywhere")
	}
	if !published {
		t.Error("the card does not say that nothing is published")
	}
}

// Switching tabs never changes what the window needs, so it never resizes
// (once each tab has shown its content).
func TestTabSwitchKeepsTheWindowsSize(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	for i := range g.tabs.Items {
		g.tabs.SelectIndex(i)
	}
	g.tabs.SelectIndex(tabStatus)
	want := g.win.Content().MinSize()
	for i := range g.tabs.Items {
		g.tabs.SelectIndex(i)
		if got := g.win.Content().MinSize(); got != want {
			t.Errorf("tab %d: the window needs %v, on the Status tab %v", i, got, want)
		}
	}
}

// The window starts with the shown page only; the others are built later,
// hidden, one at a time, and ready is called once all are there.
func TestHiddenPagesAreBuiltAfterTheShownOne(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	if len(g.pages.Objects) != 1 || g.pages.Objects[0] != g.status.root {
		t.Fatalf("%d pages built before the window is up, want the Status page only", len(g.pages.Objects))
	}
	ready := false
	g.buildHiddenPages(func() { ready = true })
	testutil.Eventually(t, "every page built, then ready", func() bool {
		uiQueue.run()
		return ready
	})
	for i, root := range g.roots {
		if !slices.Contains(g.pages.Objects, root) {
			t.Errorf("page %d not built", i)
		}
		if root.Visible() != (i == tabStatus) {
			t.Errorf("page %d visible %t; only the shown page may be", i, root.Visible())
		}
	}
	if len(g.pages.Objects) != len(g.roots) {
		t.Errorf("%d pages in the window, want %d", len(g.pages.Objects), len(g.roots))
	}
}

// My network lists the people at a depth, by name where known, with who
// brought them in, and narrows to what is searched; a person can be looked
// up and copied.
func TestMyNetworkListsPeopleAndWhoBroughtThemIn(t *testing.T) {
	g, eng := newTestGUI(t, tabFrontier)
	g.SetNames(&knownNames{names: map[string]string{aliceHex: "Alice"}})
	l := g.frontier.people
	l.refresh(true) // the names are read as the list is drawn
	if l.depth.Selected != "1 hop from you" {
		t.Fatalf("depth %q, want the people you trust first", l.depth.Selected)
	}
	want := [][]string{{"Alice", words.Npub(aliceHex), "you"}, {words.ShortKey(bobHex), words.Npub(bobHex), "you"}}
	if got := l.table.rows; len(got) != 2 || strings.Join(got[0], "|") != strings.Join(want[0], "|") ||
		strings.Join(got[1], "|") != strings.Join(want[1], "|") || l.count.Text != "2 people" {
		t.Errorf("rows %q (%q), want %q", got, l.count.Text, want)
	}
	l.search.SetText("ali")
	if got := l.table.rows; len(got) != 1 || got[0][0] != "Alice" || l.count.Text != "1 person" {
		t.Errorf("search 'ali': rows %q (%q)", got, l.count.Text)
	}
	l.search.SetText("")
	l.depth.SetSelected(depthLabel(0))
	if got := l.table.rows; len(got) != 2 || got[0][0] != "you" || got[0][2] != "—" {
		t.Errorf("depth 0: rows %q", got)
	}

	// Each person can be copied and looked up; both roots are "you", the
	// second row is still the second root.
	if l.person.root.Visible() {
		t.Error("the person buttons are shown with no row selected")
	}
	l.table.table.Select(fyneCell(1))
	if !l.person.root.Visible() {
		t.Error("the person buttons did not appear with a selection")
	}
	test.Tap(l.person.copy)
	if got := g.app.Clipboard().Content(); got != words.Npub(root2Hex) {
		t.Errorf("copied %q, want the second root's npub", got)
	}
	if got := g.info.text(); got != "Copied you's npub" && got != "Copied your npub" {
		t.Errorf("after Copy the window says %q", got)
	}
	l.depth.SetSelected(depthLabel(1))
	l.table.table.Select(fyneCell(0))
	test.Tap(l.person.lookUp)
	g.settle()
	if g.tabs.SelectedIndex() != tabLookup {
		t.Errorf("tab %d after Look up, want Look-up", g.tabs.SelectedIndex())
	}
	assertCalls(t, eng, "Resolve "+aliceHex)
}

// An empty table is one line, not a header over a blank (issue 31), and
// My network's people get the room the counts above them do not need.
func TestEmptyTablesAreOneLineAndPeopleGetTheRoom(t *testing.T) {
	g, _ := newTestGUI(t, tabActivity)
	s := fixture()
	s.Ingest.RecentRejections = nil
	g.render(s)
	g.showTab(tabActivity, 1040, 720)
	r := g.activity.rejections
	if r.table.Visible() || !r.none.Visible() {
		t.Errorf("no rejections: table shown %t, its line shown %t", r.table.Visible(), r.none.Visible())
	}
	assertShows(t, g.activity.root, "No rejections: every event received was kept or already here.")

	g.showTab(tabFrontier, 1040, 720)
	l := g.frontier.people
	if rows := l.table.table.Size().Height / rowHeight(); rows < 5 {
		t.Errorf("My network's people table shows %.1f rows in a 1040×720 window, want at least 5", rows)
	}
}

// Copy says it copied, where nothing else on screen would (issue 31).
func TestCopySaysCopied(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	test.Tap(g.status.client.copy)
	if got := g.app.Clipboard().Content(); got != "ws://127.0.0.1:7447" {
		t.Errorf("copied %q", got)
	}
	if got := g.info.text(); got != "Copied ws://127.0.0.1:7447" {
		t.Errorf("the window says %q after Copy", got)
	}
	g.copyNpub(aliceHex)
	if got := g.info.text(); got != "Copied "+words.ShortKey(aliceHex)+"'s npub" {
		t.Errorf("the window says %q after copying an npub", got)
	}
}
