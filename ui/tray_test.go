package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// recordingTray is a TrayHost that keeps what it was given.
type recordingTray struct {
	menus    []*fyne.Menu
	statuses []string
}

func (r *recordingTray) SetSystemTrayMenu(m *fyne.Menu) { r.menus = append(r.menus, m) }
func (r *recordingTray) SetStatus(text string)          { r.statuses = append(r.statuses, text) }

func (r *recordingTray) menu(t *testing.T) *fyne.Menu {
	t.Helper()
	if len(r.menus) == 0 {
		t.Fatal("no tray menu set")
	}
	return r.menus[len(r.menus)-1]
}

func item(t *testing.T, m *fyne.Menu, label string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if it.Label == label {
			return it
		}
	}
	t.Fatalf("menu has no item %q", label)
	return nil
}

func TestTrayMenuShowsStrategiesAndState(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	host := &recordingTray{}
	g.AttachTray(host)
	m := host.menu(t)

	var labels []string
	for _, it := range m.Items {
		if !it.IsSeparator {
			labels = append(labels, it.Label)
		}
	}
	want := "Syncing…|Interval (trusted network)|Continuous (trusted network)|Subscribe all|Interval|Sync now|Pause sync|Copy WebSocket URL|Open window|Quit"
	if got := strings.Join(labels, "|"); got != want {
		t.Fatalf("tray items = %s\nwant %s", got, want)
	}
	for _, id := range settings.Strategies {
		if checked := item(t, m, settings.StrategyLabel(id)).Checked; checked != (id == settings.FrontierInterval) {
			t.Errorf("%s checked = %t", id, checked)
		}
	}
	var intervals []string
	for _, it := range item(t, m, "Interval").ChildMenu.Items {
		mark := ""
		if it.Checked {
			mark = "*"
		}
		intervals = append(intervals, it.Label+mark)
	}
	if got := strings.Join(intervals, "|"); got != "Every 5 min|Every 15 min*|Every 30 min|Every 60 min|Manual only" {
		t.Errorf("interval submenu = %s", got)
	}
	item(t, m, "Copy WebSocket URL").Action()
	if got := g.app.Clipboard().Content(); got != "ws://127.0.0.1:7447" {
		t.Errorf("tray copied %q, want the server's WebSocket URL", got)
	}
	if !m.Items[0].Disabled {
		t.Error("the tray's status line is not disabled")
	}
	if !item(t, m, "Quit").IsQuit {
		t.Error("Quit is not marked as the quit item")
	}
	if got := host.statuses; len(got) != 1 || got[0] != "DTP Personal: syncing: 420 of 1,000 authors (trust pass)" {
		t.Errorf("tray status = %q", got)
	}
}

func TestTrayStrategyChoiceCallsSetStrategy(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	host := &recordingTray{}
	g.AttachTray(host)
	m := host.menu(t)

	item(t, m, settings.StrategyLabel(settings.FrontierInterval)).Action() // already active: nothing to do
	item(t, m, settings.StrategyLabel(settings.GlobalContinuous)).Action()
	item(t, m, "Sync now").Action()
	item(t, m, "Pause sync").Action()
	g.settle()
	assertCalls(t, eng, "SyncNow")
	assertSettings(t, eng, func(s *settings.Settings) {
		s.Strategy, s.Paused = settings.GlobalContinuous, true
	})
}

// An interval is ticked only while passes run at intervals (issue 31: the
// tray kept "Every 15 min" ticked in continuous mode); choosing one there
// switches to passes at that interval.
func TestTrayIntervalTickedOnlyInIntervalMode(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	host := &recordingTray{}
	g.AttachTray(host)
	ticked := func() []string {
		var on []string
		for _, it := range item(t, host.menu(t), "Interval").ChildMenu.Items {
			if it.Checked {
				on = append(on, it.Label)
			}
		}
		return on
	}
	if got := ticked(); len(got) != 1 || got[0] != "Every 15 min" {
		t.Errorf("interval mode ticks %q, want Every 15 min", got)
	}
	s := fixture()
	s.Strategy, s.State = settings.FrontierContinuous, status.StateLive
	eng.mu.Lock()
	eng.snap = s // the engine runs it too
	eng.mu.Unlock()
	g.render(s)
	if got := ticked(); len(got) != 0 {
		t.Errorf("continuous mode ticks %q, want no interval", got)
	}
	item(t, host.menu(t), "Interval").ChildMenu.Items[0].Action() // Every 5 min
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) { s.Strategy, s.IntervalMinutes = settings.FrontierInterval, 5 })
}

func TestTrayRebuildsMenuOnlyWhenItChanges(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	host := &recordingTray{}
	g.AttachTray(host)

	s := fixture()
	s.Progress.Done = 900 // only the state line changes
	g.render(s)
	if len(host.menus) != 1 {
		t.Fatalf("menu rebuilt %d times for a progress change", len(host.menus)-1)
	}
	if last := host.statuses[len(host.statuses)-1]; last != "DTP Personal: syncing: 900 of 1,000 authors (trust pass)" {
		t.Errorf("status after progress = %q", last)
	}
	g.render(s)
	if len(host.statuses) != 2 {
		t.Errorf("status set again without a change: %q", host.statuses)
	}

	s.Paused, s.Strategy = true, settings.FrontierContinuous
	g.render(s)
	if len(host.menus) != 2 {
		t.Fatalf("menu not rebuilt after the strategy changed")
	}
	if host.menus[0] != host.menus[1] {
		t.Error("a rebuild gave the tray a new menu; Fyne's tray start-up would show the first one")
	}
	m := host.menu(t)
	if !item(t, m, settings.StrategyLabel(settings.FrontierContinuous)).Checked || item(t, m, settings.StrategyLabel(settings.FrontierInterval)).Checked {
		t.Error("rebuilt menu does not check the new strategy")
	}
	item(t, m, "Resume sync") // the pause item flips
	item(t, m, "Paused")      // and the status line
	if last := host.statuses[len(host.statuses)-1]; last != "DTP Personal: paused" {
		t.Errorf("status when paused = %q", last)
	}
}

func TestQuitCallsCallbackOnceAndStopsSubscription(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	quits := make(chan struct{}, 2)
	g.quit = func() { quits <- struct{}{} }
	g.Start()
	host := &recordingTray{}
	g.AttachTray(host)
	item(t, host.menu(t), "Quit").Action()
	g.Quit()
	<-quits
	select {
	case <-quits:
		t.Fatal("quit callback called twice")
	default:
	}
	eng.mu.Lock()
	defer eng.mu.Unlock()
	if !eng.cancelled {
		t.Error("Quit did not cancel the engine subscription")
	}
}

// Closing the window the first time says once that the app keeps running
// in the tray; later closes only hide the window.
func TestFirstCloseSaysTheAppKeepsRunning(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	g.win.Show()
	test.AssertNotificationSent(t, fyne.NewNotification("DTP Personal keeps running",
		"It goes on syncing in the tray. Open the window again from the tray icon; Quit there stops it."), g.hideToTray)
	g.win.Show()
	test.AssertNotificationSent(t, nil, g.hideToTray)
}

// Where no notification service runs, the first close says in the window
// that the app keeps running in the tray, and the window stays up that once
// to be read (issue 31: the notice was lost).
func TestFirstCloseWithoutNotificationsSaysItInTheWindow(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	g.notifications = func() bool { return false }
	win := &hidingWindow{Window: g.win}
	g.win = win
	test.AssertNotificationSent(t, nil, g.hideToTray)
	if !strings.Contains(g.info.text(), "keeps running in the tray") {
		t.Errorf("the window says %q", g.info.text())
	}
	if win.hides != 0 {
		t.Error("the window hid before its line could be read")
	}
	g.hideToTray()
	if win.hides != 1 {
		t.Error("the second close did not hide the window")
	}
}

// hidingWindow counts the times it was hidden.
type hidingWindow struct {
	fyne.Window
	hides int
}

func (w *hidingWindow) Hide() {
	w.hides++
	w.Window.Hide()
}
