package ui

import (
	"encoding/hex"
	"errors"
	"fmt"
	"image/color"
	"math"
	"net"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/status"
)

// settingsView is the Settings tab: roots, frontier caps, interval, listen
// address, scope profile and start at login. Each group applies on its own
// button; a group's bad input is refused inline and nothing is sent.
type settingsView struct {
	g    *GUI
	root fyne.CanvasObject

	rootEntry  *widget.Entry
	rootError  *inlineError
	roots      *textTable
	removeRoot *widget.Button

	limits      []*syncedEntry // in limitFields order
	limitsError *inlineError

	interval *widget.Select

	listen      *syncedEntry
	allowLAN    *widget.Check
	listenError *inlineError

	scope      *syncedEntry
	scopeError *inlineError

	startAtLogin *widget.Check
	repoSync     *widget.Label
}

// limitField is one frontier cap or heap guardrail in the caps form.
type limitField struct {
	label string
	field func(*status.Limits) *int
	max   int
}

var limitFields = []limitField{
	{"Max depth", func(l *status.Limits) *int { return &l.MaxDepth }, status.MaxDepthHardCap},
	{"Max authors per level", func(l *status.Limits) *int { return &l.MaxAuthorsPerLevel }, math.MaxInt32},
	{"Max total authors", func(l *status.Limits) *int { return &l.MaxTotalAuthors }, math.MaxInt32},
	{"Max trust events per pass", func(l *status.Limits) *int { return &l.MaxEvents }, math.MaxInt32},
	{"Max rating events", func(l *status.Limits) *int { return &l.MaxRatingEvents }, math.MaxInt32},
	{"Max discovery events", func(l *status.Limits) *int { return &l.MaxDiscoveryEvents }, math.MaxInt32},
	{"Heap node limit", func(l *status.Limits) *int { return &l.HeapNodeLimit }, math.MaxInt32},
	{"Heap edge limit", func(l *status.Limits) *int { return &l.HeapEdgeLimit }, math.MaxInt32},
}

func newSettingsView(g *GUI) *settingsView {
	v := &settingsView{
		g: g, rootError: newInlineError(), limitsError: newInlineError(),
		listenError: newInlineError(), scopeError: newInlineError(),
	}

	v.rootEntry = widget.NewEntry()
	v.rootEntry.SetPlaceHolder("npub1… or 64-character hex public key")
	v.rootEntry.OnSubmitted = func(string) { v.addRoot() }
	v.roots = newTextTable([]string{"Root (npub)", "Hex"}, []float32{500, 560})
	v.removeRoot = widget.NewButton("Remove selected root", v.removeSelectedRoot)
	v.removeRoot.Disable()
	v.roots.onSelect = func(key string) {
		if key == "" {
			v.removeRoot.Disable()
		} else {
			v.removeRoot.Enable()
		}
	}
	rootsHeight := canvas.NewRectangle(color.Transparent)
	rootsHeight.SetMinSize(fyne.NewSize(0, 150)) // room for a few roots; the table scrolls beyond
	rootsTable := container.NewStack(rootsHeight, v.roots.table)
	rootsCard := widget.NewCard("Roots", "Whose web of trust to follow", container.NewVBox(
		container.NewBorder(nil, nil, nil, widget.NewButton("Add root", v.addRoot), v.rootEntry),
		v.rootError.label,
		rootsTable,
		container.NewHBox(v.removeRoot),
	))

	limitsForm := widget.NewForm()
	for _, f := range limitFields {
		e := newSyncedEntry()
		v.limits = append(v.limits, e)
		limitsForm.Append(f.label, e.Entry)
	}
	capsCard := widget.NewCard("Frontier caps and heap limits", "", container.NewVBox(
		limitsForm,
		v.limitsError.label,
		container.NewHBox(
			widget.NewButton("Save limits", v.saveLimits),
			widget.NewButton("Fill in defaults", v.fillDefaultLimits),
		),
	))

	choices := make([]string, len(status.IntervalChoices))
	for i, m := range status.IntervalChoices {
		choices[i] = intervalLabel(m)
	}
	v.interval = widget.NewSelect(choices, v.chooseInterval)

	v.listen = newSyncedEntry()
	v.listen.SetPlaceHolder("127.0.0.1:7447")
	v.allowLAN = widget.NewCheck("Allow connections from the local network", nil)
	v.scope = newSyncedEntry()
	v.scope.SetPlaceHolder("x.com")
	v.startAtLogin = widget.NewCheck("Start at login", v.chooseStartAtLogin)
	v.repoSync = widget.NewLabel("")

	serverCard := widget.NewCard("Sync and server", "", widget.NewForm(
		widget.NewFormItem("Sync interval", v.interval),
		widget.NewFormItem("Listen address", container.NewVBox(
			container.NewBorder(nil, nil, nil, widget.NewButton("Apply", v.applyListen), v.listen.Entry),
			v.allowLAN,
			v.listenError.label,
		)),
		widget.NewFormItem("Scope profile", container.NewVBox(
			container.NewBorder(nil, nil, nil, widget.NewButton("Apply", v.applyScope), v.scope.Entry),
			v.scopeError.label,
		)),
		widget.NewFormItem("Repository sync", v.repoSync),
		widget.NewFormItem("", v.startAtLogin),
	))

	v.root = container.NewVScroll(container.NewVBox(rootsCard, capsCard, serverCard))
	return v
}

// validRoot checks that input is an npub or a 64-character hex key, and
// gives it in lower case.
func validRoot(input string) (string, error) {
	input = strings.ToLower(strings.TrimSpace(input))
	switch {
	case input == "":
		return "", errors.New("enter an npub or a 64-character hex public key")
	case strings.HasPrefix(input, "npub1"):
		if prefix, _, err := nip19.Decode(input); err != nil || prefix != "npub" {
			return "", errors.New("not a valid npub (check for a typo: the checksum does not match)")
		}
		return input, nil
	}
	if b, err := hex.DecodeString(input); err != nil || len(b) != 32 {
		return "", errors.New("not an npub, nor a 64-character hex public key")
	}
	return input, nil
}

func (v *settingsView) addRoot() {
	typed := v.rootEntry.Text
	root, err := validRoot(typed)
	if err != nil {
		v.rootError.set(err.Error())
		return
	}
	v.rootError.clear()
	v.g.call("Add root", func() error { return v.g.eng.AddRoot(root) }, func(err error) {
		if err != nil {
			v.rootError.set(err.Error())
			return
		}
		if v.rootEntry.Text == typed { // unless the user typed on meanwhile
			v.rootEntry.SetText("")
		}
	})
}

func (v *settingsView) removeSelectedRoot() {
	row := v.roots.selectedRow()
	if row == nil {
		return
	}
	hexKey := row[1]
	v.g.call("Remove root", func() error { return v.g.eng.RemoveRoot(hexKey) }, nil)
}

// parseLimits reads the caps form; the error names the first bad field.
func (v *settingsView) parseLimits() (status.Limits, error) {
	var l status.Limits
	for i, f := range limitFields {
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(v.limits[i].Text), ",", ""))
		if err != nil || n < 1 || n > f.max {
			return status.Limits{}, fmt.Errorf("%s: enter a whole number from 1 to %s", f.label, count(f.max))
		}
		*f.field(&l) = n
	}
	return l, nil
}

func (v *settingsView) saveLimits() {
	l, err := v.parseLimits()
	if err != nil {
		v.limitsError.set(err.Error())
		return
	}
	v.limitsError.clear()
	v.g.call("Save limits", func() error { return v.g.eng.SetLimits(l) }, v.limitsError.setErr)
}

func (v *settingsView) fillDefaultLimits() {
	d := status.DefaultLimits()
	for i, f := range limitFields {
		v.limits[i].SetText(strconv.Itoa(*f.field(&d)))
	}
}

func (v *settingsView) chooseInterval(label string) {
	for _, m := range status.IntervalChoices {
		if intervalLabel(m) == label && m != v.g.last.IntervalMinutes {
			v.g.call("Set interval", func() error { return v.g.eng.SetInterval(m) }, nil)
		}
	}
}

// validListen checks that addr is host:port with a port from 1 to 65535.
func validListen(addr string) (string, error) {
	addr = strings.TrimSpace(addr)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", errors.New("enter host:port, e.g. 127.0.0.1:7447")
	}
	if host == "" {
		return "", errors.New("enter a host before the port, e.g. 127.0.0.1 or 0.0.0.0")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", errors.New("the port must be a number from 1 to 65535")
	}
	return addr, nil
}

func (v *settingsView) applyListen() {
	addr, err := validListen(v.listen.Text)
	if err != nil {
		v.listenError.set(err.Error())
		return
	}
	v.listenError.clear()
	allowLAN := v.allowLAN.Checked
	v.g.call("Set listen address", func() error { return v.g.eng.SetListen(addr, allowLAN) }, v.listenError.setErr)
}

func (v *settingsView) applyScope() {
	scope := strings.TrimSpace(v.scope.Text)
	if scope == "" || strings.ContainsAny(scope, " \t/") {
		v.scopeError.set("enter a scope profile such as x.com")
		return
	}
	v.scopeError.clear()
	v.g.call("Set scope profile", func() error { return v.g.eng.SetScopeProfile(scope) }, v.scopeError.setErr)
}

func (v *settingsView) chooseStartAtLogin(on bool) {
	if on == v.g.last.Settings.StartAtLogin {
		return
	}
	v.g.call("Start at login", func() error { return v.g.eng.SetStartAtLogin(on) }, func(err error) {
		if err != nil {
			v.g.notice.set("Start at login: " + err.Error())
			v.render(v.g.last)
		}
	})
}

func (v *settingsView) render(s status.Snapshot) {
	rows := make([][]string, len(s.Frontier.Roots))
	for i, r := range s.Frontier.Roots {
		rows[i] = []string{displayKey(r), r}
	}
	v.roots.setRows(rows)

	for i, f := range limitFields {
		v.limits[i].show(strconv.Itoa(*f.field(&s.Settings.Limits)))
	}
	showChosen(v.interval, intervalLabel(s.IntervalMinutes))
	if v.listen.show(s.Settings.Listen) {
		showChecked(v.allowLAN, s.Settings.AllowLAN)
	}
	v.scope.show(s.Settings.ScopeProfile)
	showChecked(v.startAtLogin, s.Settings.StartAtLogin)
	if s.Settings.RepoSyncService == "" {
		setText(v.repoSync, "off")
	} else {
		setText(v.repoSync, s.Settings.RepoSyncService)
	}
}

// syncedEntry is a form entry that follows the engine's value until the
// user edits it, so an update does not overwrite typing in progress.
type syncedEntry struct {
	*widget.Entry
	shown string // the engine value last put in the entry
}

func newSyncedEntry() *syncedEntry { return &syncedEntry{Entry: widget.NewEntry()} }

// show puts the engine's value in the entry unless the user has changed it
// (to something else than the new value); it reports whether the entry
// follows the engine.
func (e *syncedEntry) show(value string) bool {
	if e.Text != e.shown && e.Text != value {
		return false
	}
	if e.Text != value {
		e.SetText(value)
	}
	e.shown = value
	return true
}
