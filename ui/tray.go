package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// TrayHost is where the tray menu and state line go: the desktop's system
// tray in the app (see NewSystemTray), a recorder in tests.
type TrayHost interface {
	SetSystemTrayMenu(menu *fyne.Menu)
	// SetStatus shows a one-line state as the tray item's title and tooltip.
	SetStatus(text string)
}

// statusReassert is how often an unchanged state line is set again: Fyne
// sets the tray title to the app name once the tray comes up, at a moment
// the app cannot observe.
const statusReassert = 5 * time.Second

// tray keeps the tray menu and state line in step with the snapshots.
type tray struct {
	g        *GUI
	host     TrayHost
	menu     *fyne.Menu // one menu, its items replaced on change: Fyne's tray start-up shows the menu it was first given
	shown    string     // menu key last built, see menuKey
	status   string
	statusAt time.Time
}

// AttachTray puts the app's menu in host and keeps it current. Call it
// before the app runs.
func (g *GUI) AttachTray(host TrayHost) {
	g.tray = &tray{g: g, host: host}
	g.tray.render(g.last)
}

// menuKey is what the menu shows from a snapshot: the menu is rebuilt only
// when it changes (a rebuild resets the desktop's copy of the menu), so its
// status line says the state without the figures that change every second.
func menuKey(s status.Snapshot, c clock) string {
	return fmt.Sprintf("%s|%d|%t|%s", s.Strategy, s.IntervalMinutes, s.Paused, menuStatus(s, c))
}

// trayTitleMax is the most characters of the tray title: hosts that show
// it give it a line in a panel.
const trayTitleMax = 60

// trayTitle is the tray's title and tooltip: the state, cut short.
func trayTitle(s status.Snapshot, c clock) string {
	line := "DTP Personal: " + stateLabel(s, c)
	if repos := repoStateLabel(s.RepoSync); repos != "" {
		line += " · " + repos
	}
	return words.Cut(line, trayTitleMax)
}

// menuStatus is the tray menu's first, disabled line (tray hosts such as
// GNOME's never show the title): the state without running figures.
func menuStatus(s status.Snapshot, c clock) string {
	if s.State == status.StateRunning && !s.Paused {
		return "Syncing…"
	}
	calm := s // without retry times, which change every second
	calm.Relays = make([]status.Relay, len(s.Relays))
	for i, r := range s.Relays {
		r.NextRetry = 0
		calm.Relays[i] = r
	}
	line := stateLabel(calm, c)
	return words.Cut(strings.ToUpper(line[:1])+line[1:], 2*trayTitleMax)
}

func (t *tray) render(s status.Snapshot) {
	if key := menuKey(s, t.g.clock); t.menu == nil || key != t.shown {
		t.shown = key
		if t.menu == nil {
			t.menu = fyne.NewMenu("DTP Personal")
		}
		t.menu.Items = t.items(s)
		t.host.SetSystemTrayMenu(t.menu)
	}
	line := trayTitle(s, t.g.clock)
	if line != t.status || time.Since(t.statusAt) > statusReassert {
		t.status, t.statusAt = line, time.Now()
		t.host.SetStatus(line)
	}
}

// items are the tray menu's entries for a snapshot.
func (t *tray) items(s status.Snapshot) []*fyne.MenuItem {
	g := t.g
	statusLine := fyne.NewMenuItem(menuStatus(s, g.clock), nil)
	statusLine.Disabled = true
	items := []*fyne.MenuItem{statusLine, fyne.NewMenuItemSeparator()}
	for _, id := range settings.Strategies {
		item := fyne.NewMenuItem(settings.StrategyLabel(id), func() {
			if id != g.last.Strategy {
				g.call("Switch strategy", func() error { return g.eng.Modify(settings.SetStrategy(id)) }, nil)
			}
		})
		item.Checked = id == s.Strategy
		items = append(items, item)
	}

	// An interval is ticked only while the interval strategy runs; choosing
	// one in a continuous strategy switches to passes at that interval.
	interval := s.Strategy == settings.FrontierInterval
	var intervals []*fyne.MenuItem
	for _, m := range settings.IntervalChoices {
		item := fyne.NewMenuItem(intervalLabel(m), func() {
			if m != g.last.IntervalMinutes || g.last.Strategy != settings.FrontierInterval {
				g.call("Set interval", func() error { return g.eng.Modify(passesEvery(m)) }, nil)
			}
		})
		item.Checked = interval && m == s.IntervalMinutes
		intervals = append(intervals, item)
	}
	intervalItem := fyne.NewMenuItem("Interval", nil)
	intervalItem.ChildMenu = fyne.NewMenu("", intervals...)

	pauseLabel := "Pause sync"
	if s.Paused {
		pauseLabel = "Resume sync"
	}
	paused := !s.Paused
	quit := fyne.NewMenuItem("Quit", g.Quit)
	quit.IsQuit = true

	items = append(items,
		intervalItem,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Sync now", func() { g.call("Sync now", g.eng.SyncNow, nil) }),
		fyne.NewMenuItem(pauseLabel, func() {
			g.call(pauseLabel, func() error { return g.eng.Modify(settings.SetPaused(paused)) }, nil)
		}),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Copy WebSocket URL", g.copyServerURL),
		fyne.NewMenuItem("Open window", g.ShowWindow),
		quit,
	)
	return items
}

// passesEvery is the settings edit of choosing an interval: the interval
// strategy, passing every minutes.
func passesEvery(minutes int) func(*settings.Settings) error {
	return func(s *settings.Settings) error {
		if err := settings.SetStrategy(settings.FrontierInterval)(s); err != nil {
			return err
		}
		return settings.SetInterval(minutes)(s)
	}
}
