package ui

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// The tabs, in order.
const (
	tabStatus = iota
	tabLookup
	tabRelays
	tabFrontier
	tabActivity
	tabSettings
	tabRepos
)

// view is one tab's content, showing a snapshot.
type view interface{ render(status.Snapshot) }

// GUI is the app's window and tray, bound to one engine.
type GUI struct {
	app   fyne.App
	eng   Engine
	quit  func()
	clock clock
	// onUI runs a function on the UI thread (fyne.Do); tests replace it to
	// run UI work on the test's goroutine, as the desktop driver would.
	onUI func(func())

	win    fyne.Window
	notice *inlineError        // failures of commands given from the tray or tabs
	info   *infoLine           // what a command did that shows nowhere else ("Copied …")
	tabs   *container.AppTabs  // the tab bar
	pages  *fyne.Container     // the tabs' pages built so far, the selected one shown
	roots  []fyne.CanvasObject // every tab's page, in tab order (see buildPage)

	status   *statusView
	lookup   *lookupView
	relays   *relaysView
	frontier *frontierView
	activity *activityView
	settings *settingsView
	repos    *reposView
	tray     *tray
	notifier *notifier
	names    Names // display names; nil: people show as short npubs
	// notifications reports whether the desktop shows notifications (a
	// notification service runs); when not, what one would say goes to the
	// window instead.
	notifications func() bool
	version       string            // the program's version, for the About line
	known         map[string]string // display names read so far, by hex key; UI thread only
	views         []view            // the tabs' views, in tab order
	// shortcuts are the window's shortcuts by name, for entries to pass on
	shortcuts map[string]func()

	last       status.Snapshot // what the views show; read and written on the UI thread only
	nextMu     sync.Mutex
	next       *status.Snapshot // the latest snapshot from the engine not yet rendered, see follow
	renderedAt time.Time        // when follow's last snapshot was rendered
	stopped    bool             // Stop was called
	rates      rateHistory      // ingest counters of the last 15 min, for the Activity chart; UI thread only
	calls      sync.WaitGroup   // engine commands queued or running
	queueMu    sync.Mutex
	queue      []func() // engine commands waiting, run one at a time in order
	draining   bool     // a goroutine is running the queue
	cancel     func()
	quitOnce   sync.Once
}

// New builds the window for eng in app a; nothing is shown or subscribed
// until Start. quit, if not nil, is called once when the user chooses Quit,
// before the app stops.
func New(a fyne.App, eng Engine, quit func()) *GUI {
	g := &GUI{app: a, eng: eng, quit: quit, clock: words.SystemClock(), onUI: fyne.Do, shortcuts: map[string]func(){},
		known: map[string]string{}, version: "devel", notifications: func() bool { return true }}
	a.Settings().SetTheme(appTheme{})
	g.win = a.NewWindow("DTP Personal Server")
	g.notifier = newNotifier(a.SendNotification, time.Now)
	g.notice = newInlineError()
	g.info = newInfoLine(g)
	g.status = newStatusView(g)
	g.lookup = newLookupView(g)
	g.relays = newRelaysView(g)
	g.frontier = newFrontierView(g)
	g.activity = newActivityView(g)
	g.settings = newSettingsView(g)
	g.repos = newReposView(g)
	g.views = []view{g.status, g.lookup, g.relays, g.frontier, g.activity, g.settings, g.repos}
	g.roots = []fyne.CanvasObject{g.status.root, g.lookup.root, g.relays.root, g.frontier.root,
		g.activity.root, g.settings.root, g.repos.root}
	g.pages = container.New(allPagesLayout{})
	// The tabs hold no content: selecting a tab refreshes every tab's
	// content, which for these pages costs the UI thread tens of
	// milliseconds per switch; the selected page shows in pages instead.
	g.tabs = container.NewAppTabs()
	for _, name := range []string{"Status", "Look-up", "Relays", "My network", "Activity", "Settings", "Repositories"} {
		g.tabs.Append(container.NewTabItem(name, layout.NewSpacer()))
	}
	g.tabs.OnSelected = func(*container.TabItem) { g.showPage(g.tabs.SelectedIndex()) }
	g.showPage(tabStatus)
	g.win.SetContent(container.NewBorder(g.tabs, container.NewVBox(g.notice.label, g.info.label), nil, nil, g.pages))
	g.addShortcut(lookupShortcut, g.focusLookup)
	for i := range g.tabs.Items {
		g.addShortcut(tabShortcut(i), func() { g.tabs.SelectIndex(i) })
	}
	g.win.Resize(fyne.NewSize(1040, 720))
	g.render(status.Snapshot{})
	return g
}

// addShortcut binds a window shortcut, which works whichever widget has
// the focus (entries pass it on).
func (g *GUI) addShortcut(s fyne.Shortcut, run func()) {
	g.shortcuts[s.ShortcutName()] = run
	g.win.Canvas().AddShortcut(s, func(fyne.Shortcut) { run() })
}

// showPage shows the i-th tab's view, with the latest snapshot.
func (g *GUI) showPage(i int) {
	g.buildPage(i)
	g.views[i].render(g.last)
	for j, page := range g.roots {
		if j != i {
			page.Hide()
		}
	}
	g.roots[i].Show()
}

// buildPage puts the i-th tab's page in the window, hidden, unless it is
// there already. Laying a page out the first time creates the renderers of
// all its widgets, tens of milliseconds for the larger pages: the window
// starts with the shown page only and builds the others later
// (buildHiddenPages), one per turn of the UI thread, or when first shown.
func (g *GUI) buildPage(i int) {
	if slices.Contains(g.pages.Objects, g.roots[i]) {
		return
	}
	g.roots[i].Hide()
	g.pages.Add(g.roots[i])
}

// hiddenPagePause is the time between building two hidden pages, so that
// the window paints and answers input between them.
const hiddenPagePause = 100 * time.Millisecond

// buildHiddenPages builds the pages not built yet, one per turn of the UI
// thread, hiddenPagePause apart, starting hiddenPagePause after it is
// called (after the window's first frame, when called as the app loop
// starts), then calls built, if not nil. Once all are built, the window
// asks for the room of the largest, so switching tabs never resizes it.
func (g *GUI) buildHiddenPages(built func()) {
	go func() {
		for i := range g.roots {
			time.Sleep(hiddenPagePause)
			if g.isStopped() {
				return
			}
			g.onUI(func() { g.buildPage(i) })
		}
		if built != nil {
			g.onUI(built)
		}
	}()
}

// allPagesLayout stacks the tabs' pages, one shown at a time, and asks for
// the room of the largest, shown or not: a Stack asks for the shown one's,
// so switching to a larger page grew the window.
type allPagesLayout struct{}

func (allPagesLayout) Layout(pages []fyne.CanvasObject, size fyne.Size) {
	for _, p := range pages {
		p.Resize(size)
		p.Move(fyne.NewPos(0, 0))
	}
}

func (allPagesLayout) MinSize(pages []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, p := range pages {
		m = m.Max(p.MinSize())
	}
	return m
}

// lookupShortcut (Ctrl+L) brings up the Look-up tab ready for typing,
// from any tab.
var lookupShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}

// tabShortcut (Alt+1 … Alt+7) selects the i-th tab, as in browsers; the
// screenshot script and the lag benchmark use it too.
func tabShortcut(i int) *desktop.CustomShortcut {
	digits := []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6, fyne.Key7, fyne.Key8, fyne.Key9}
	return &desktop.CustomShortcut{KeyName: digits[i], Modifier: fyne.KeyModifierAlt}
}

func (g *GUI) focusLookup() {
	g.tabs.SelectIndex(tabLookup)
	g.win.Canvas().Focus(g.lookup.subject)
}

// Window is the main window.
func (g *GUI) Window() fyne.Window { return g.win }

// Start shows the engine's current status and follows its updates, at
// most two a second (see follow).
func (g *GUI) Start() {
	// Current status first: a later snapshot from the engine replaces it.
	g.follow(g.eng.Status())
	g.cancel = g.eng.Subscribe(g.follow)
}

// renderInterval is the least time between two renders of the engine's
// snapshots (the engine sends up to four a second during a sync): each
// render repaints the whole window, which on a busy machine can hold the
// UI thread for tens of milliseconds.
const renderInterval = 500 * time.Millisecond

// follow hands s to the UI thread, at most once per renderInterval,
// replacing a snapshot still waiting: the UI thread renders the latest
// snapshot once instead of each one in turn.
func (g *GUI) follow(s status.Snapshot) {
	// onUI runs its function at once on the main goroutine before the app
	// loop starts, so it is called without holding nextMu.
	g.nextMu.Lock()
	waiting := g.next != nil
	g.next = &s
	wait := time.Until(g.renderedAt.Add(renderInterval))
	g.nextMu.Unlock()
	if waiting {
		return
	}
	if wait <= 0 {
		g.onUI(g.renderNext)
		return
	}
	time.AfterFunc(wait, func() {
		if !g.isStopped() {
			g.onUI(g.renderNext)
		}
	})
}

// renderNext renders the snapshot follow left waiting.
func (g *GUI) renderNext() {
	g.nextMu.Lock()
	latest := *g.next
	g.next = nil
	g.renderedAt = time.Now()
	g.nextMu.Unlock()
	g.render(latest)
}

// Stop ends the subscription started by Start; no snapshot is handed to
// the UI thread afterwards.
func (g *GUI) Stop() {
	if g.cancel != nil {
		g.cancel()
	}
	g.nextMu.Lock()
	g.stopped = true // a render follow delayed is not handed over
	g.nextMu.Unlock()
}

// isStopped reports whether Stop was called: work handed to the UI thread
// from a timer is dropped then.
func (g *GUI) isStopped() bool {
	g.nextMu.Lock()
	defer g.nextMu.Unlock()
	return g.stopped
}

// ShowWindow brings the main window up.
func (g *GUI) ShowWindow() {
	g.win.Show()
	g.win.RequestFocus()
}

// trayToldKey is the preference that records that the user was told the
// app keeps running in the tray when its window is closed.
const trayToldKey = "toldStaysInTray"

// hideToTray hides the window on close; the first time ever it says that
// the app keeps running in the tray (a closed window is not a stopped app):
// in a notification, or, where no notification service would show one, in
// the window, which stays up that once to be read.
func (g *GUI) hideToTray() {
	prefs := g.app.Preferences()
	if prefs.Bool(trayToldKey) {
		g.win.Hide()
		return
	}
	prefs.SetBool(trayToldKey, true)
	if !g.notifications() {
		g.info.hold("DTP Personal keeps running in the tray after its window is closed: open the window again from " +
			"the tray icon; Quit there stops it. Close the window again to hide it.")
		return
	}
	g.win.Hide()
	g.app.SendNotification(fyne.NewNotification("DTP Personal keeps running",
		"It goes on syncing in the tray. Open the window again from the tray icon; Quit there stops it."))
}

// copyText puts text on the clipboard and says so: "Copied Alice's npub".
func (g *GUI) copyText(text, what string) {
	g.app.Clipboard().SetContent(text)
	g.info.show("Copied " + what)
}

// Quit stops the subscription, calls the quit callback off the UI thread,
// then stops the app.
func (g *GUI) Quit() {
	g.quitOnce.Do(func() {
		slog.Info("quitting")
		g.Stop()
		go func() {
			if g.quit != nil {
				g.quit()
			}
			g.onUI(g.app.Quit)
		}()
	})
}

// render shows a snapshot in the tray and the selected tab; UI thread only.
// The other tabs catch up when selected: updating hidden widgets would
// cost the UI thread layout work and a repaint of the window for nothing.
func (g *GUI) render(s status.Snapshot) {
	g.last = s
	g.notifier.observe(s, g.clock)
	g.rates.add(g.clock.Now(), s.Ingest)
	g.views[g.tabs.SelectedIndex()].render(s)
	if g.tray != nil {
		g.tray.render(s)
	}
}

// call runs an engine command off the UI thread, then hands its error to
// done on the UI thread. Commands run one at a time in the order given, so
// "pause" then "resume" cannot arrive swapped. A nil done shows the outcome
// in the window's notice line: the error, prefixed with what the user asked
// for, or nothing once a command succeeds.
func (g *GUI) call(what string, command func() error, done func(error)) {
	if done == nil {
		done = func(err error) {
			if err != nil {
				g.notice.set(what + ": " + err.Error())
			} else {
				g.notice.clear()
			}
		}
	}
	g.calls.Add(1)
	g.queueMu.Lock()
	g.queue = append(g.queue, func() {
		defer g.calls.Done()
		err := command()
		if err != nil {
			slog.Warn("engine command failed", "command", what, "err", err)
		}
		g.onUI(func() { done(err) })
	})
	start := !g.draining
	g.draining = true
	g.queueMu.Unlock()
	if start {
		go g.drain()
	}
}

// drain runs queued commands until the queue is empty.
func (g *GUI) drain() {
	for {
		g.queueMu.Lock()
		if len(g.queue) == 0 {
			g.draining = false
			g.queueMu.Unlock()
			return
		}
		next := g.queue[0]
		g.queue = g.queue[1:]
		g.queueMu.Unlock()
		next()
	}
}

// inlineError is a red message line, hidden while there is nothing to say.
type inlineError struct{ label *widget.Label }

func newInlineError() *inlineError {
	l := widget.NewLabel("")
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return &inlineError{label: l}
}

func (e *inlineError) set(msg string) {
	setText(e.label, msg)
	if msg == "" {
		e.label.Hide()
	} else {
		e.label.Show()
	}
}

func (e *inlineError) clear() { e.set("") }

// infoShown is how long an info line stays.
const infoShown = 4 * time.Second

// infoLine is a line at the window's foot saying what a command did where
// nothing else shows it ("Copied …"); it goes after infoShown, unless held.
type infoLine struct {
	g     *GUI
	label *widget.Label
	shown int // counts the lines shown, so that a timer clears only its own
}

func newInfoLine(g *GUI) *infoLine {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return &infoLine{g: g, label: l}
}

// show says text for infoShown; UI thread only.
func (l *infoLine) show(text string) {
	l.hold(text)
	shown := l.shown
	time.AfterFunc(infoShown, func() {
		if !l.g.isStopped() {
			l.g.onUI(func() {
				if l.shown == shown {
					l.label.Hide()
				}
			})
		}
	})
}

// hold says text until the next line replaces it; UI thread only.
func (l *infoLine) hold(text string) {
	l.shown++
	setText(l.label, text)
	l.label.Show()
}

// text is the line shown, "" when none.
func (l *infoLine) text() string {
	if !l.label.Visible() {
		return ""
	}
	return l.label.Text
}

// setErr shows err, or clears the line when err is nil.
func (e *inlineError) setErr(err error) {
	if err == nil {
		e.clear()
		return
	}
	e.set(err.Error())
}

// text is the message shown, "" when hidden.
func (e *inlineError) text() string {
	if !e.label.Visible() {
		return ""
	}
	return e.label.Text
}

// callChecked sends a checked value to the engine: a refusal by the check
// (err) shows on line and nothing is sent; otherwise command runs off the UI
// thread and its outcome shows on the same line.
func callChecked[T any](g *GUI, what string, line *inlineError, value T, err error, command func(T) error) {
	if err != nil {
		line.set(err.Error())
		return
	}
	line.clear()
	g.call(what, func() error { return command(value) }, line.setErr)
}
