package ui

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// settingsView is the Settings tab: roots, frontier caps, interval, listen
// address, platform (scope profile), start at login, and the access rules (allowed
// hosts and origins). Each group applies on its own
// button; a group's bad input is refused inline and nothing is sent.
type settingsView struct {
	g    *GUI
	root fyne.CanvasObject

	rootForm   *addForm
	roots      *textTable
	removeRoot *widget.Button
	rootsNamed string // the roots whose names were last asked for

	limits      []*syncedEntry // in settings.LimitFields order
	limitsError *inlineError
	advanced    *widget.Accordion // the caps, closed until opened
	data        *dataCard

	interval *widget.Select

	listen      *syncedEntry
	allowLAN    *widget.Check
	listenError *inlineError

	scope      *syncedEntry
	scopeError *inlineError

	hosts   *listEditor
	origins *listEditor

	startAtLogin *widget.Check
	notify       *widget.Check
	repoSync     *widget.Label
}

func newSettingsView(g *GUI) *settingsView {
	v := &settingsView{
		g: g, limitsError: newInlineError(),
		listenError: newInlineError(), scopeError: newInlineError(),
	}
	rootsCard := v.newRootsCard()
	capsCard := v.newCapsCard()
	serverCard := v.newServerCard()
	accessCard := v.newAccessCard()
	// what people set first; the caps are for those who know they need them
	v.advanced = widget.NewAccordion(widget.NewAccordionItem("Advanced: frontier caps and heap limits", capsCard))
	v.data = newDataCard(g)
	page := container.NewVScroll(container.NewVBox(rootsCard, serverCard, v.advanced, accessCard, v.data.root))
	for _, t := range []*textTable{v.roots, v.hosts.table, v.origins.table} {
		t.scrollsIn(page)
	}
	v.root = page
	return v
}

func (v *settingsView) newRootsCard() *widget.Card {
	g := v.g
	v.rootForm = newAddForm(g, "Add root", "npub1… or 64-character hex public key", "Add root", tidyRoot,
		func(root string) error { return g.eng.Modify(settings.AddRoot(root)) })
	v.roots = newTextTable("Who", "npub", "Hex").whenEmpty("No root yet: add your npub above.")
	v.roots.keyCol = 1 // every root is "you"
	v.removeRoot = selectionButton(v.roots, "Remove selected root", func(row []string) {
		hexKey := row[2]
		g.call("Remove root", func() error { return g.eng.Modify(settings.RemoveRoot(hexKey)) }, nil)
	})
	rootsTable := v.roots.fitted(5) // a few roots; the table scrolls beyond
	return widget.NewCard("Roots", "Whose web of trust to follow", container.NewVBox(
		v.rootForm.root,
		rootsTable,
		container.NewHBox(v.removeRoot),
	))
}

// newCapsCard is the frontier caps and heap limits, one entry per
// settings.LimitFields, with the presets that fill them in.
func (v *settingsView) newCapsCard() *widget.Card {
	limitsForm := widget.NewForm()
	for _, f := range settings.LimitFields {
		e := newSyncedEntry(v.g)
		v.limits = append(v.limits, e)
		item := widget.NewFormItem(f.Label, e.entry)
		item.HintText = f.Help
		limitsForm.AppendItem(item)
	}
	presets := container.NewHBox(widget.NewLabel("Fill in for a"))
	for _, p := range settings.LimitPresets {
		presets.Add(widget.NewButton(p.Label, func() { v.fillPreset(p) }))
	}
	return widget.NewCard("", "How much of the network is followed and kept; the defaults suit most people",
		container.NewVBox(
			presets,
			limitsForm,
			v.limitsError.label,
			container.NewHBox(widget.NewButton("Save limits", v.saveLimits)),
		))
}

func (v *settingsView) newServerCard() *widget.Card {
	g := v.g
	choices := make([]string, len(settings.IntervalChoices))
	for i, m := range settings.IntervalChoices {
		choices[i] = intervalLabel(m)
	}
	v.interval = widget.NewSelect(choices, v.chooseInterval)

	v.listen = newSyncedEntry(g)
	v.listen.SetPlaceHolder("127.0.0.1:7447")
	v.allowLAN = widget.NewCheck("Allow connections from the local network", nil)
	v.scope = newSyncedEntry(g)
	v.scope.SetPlaceHolder("x.com")
	v.startAtLogin = newSettingCheck(g, "Start at login",
		func(s settings.Settings) bool { return s.StartAtLogin }, edit(g.eng, settings.SetStartAtLogin), v.render)
	v.notify = newSettingCheck(g, "Desktop notifications (a relay marked dead, the disk full, a pass partial after a complete one)",
		func(s settings.Settings) bool { return s.Notify }, edit(g.eng, settings.SetNotify), v.render)
	v.repoSync = widget.NewLabel("")

	// the scope profile (SPEC §2.2), in a person's words
	platformItem := widget.NewFormItem("Platform", container.NewVBox(
		container.NewBorder(nil, nil, nil, widget.NewButton("Apply", v.applyScope), v.scope.entry),
		v.scopeError.label,
	))
	platformItem.HintText = "statements about this platform's accounts are kept, and those that name no platform; x.com is the one there is"
	return widget.NewCard("Sync and server", "", widget.NewForm(
		widget.NewFormItem("Sync interval", v.interval),
		widget.NewFormItem("Listen address", container.NewVBox(
			container.NewBorder(nil, nil, nil, widget.NewButton("Apply", v.applyListen), v.listen.entry),
			v.allowLAN,
			v.listenError.label,
		)),
		platformItem,
		widget.NewFormItem("Repository sync", v.repoSync),
		widget.NewFormItem("", v.startAtLogin),
		widget.NewFormItem("", v.notify),
	))
}

func (v *settingsView) newAccessCard() *widget.Card {
	g := v.g
	v.hosts = newListEditor(g, "host", "Allowed host", "relay.example.com (a name this server is reached by, e.g. behind a reverse proxy)",
		settings.ParseHostName, edit(g.eng, settings.AllowHost), edit(g.eng, settings.DisallowHost))
	v.origins = newListEditor(g, "origin", "Allowed origin", "https://app.example.com (a web page that may use this server)",
		settings.ParseOrigin, edit(g.eng, settings.AllowOrigin), edit(g.eng, settings.DisallowOrigin))
	return widget.NewCard("Access", "This machine's own names, native clients and browser extensions need no rule",
		container.NewVBox(
			widget.NewLabel("Host names besides this machine's own"), v.hosts.root,
			widget.NewLabel("Web pages allowed to read and write"), v.origins.root,
		))
}

// tidyRoot checks a typed root; the engine parses the key again, so it gets
// it as typed, tidied.
func tidyRoot(typed string) (string, error) {
	if _, err := settings.ParsePubkey(typed); err != nil {
		return "", err
	}
	return strings.ToLower(strings.TrimSpace(typed)), nil
}

// parseLimits reads the caps form; the error names the first bad field.
func (v *settingsView) parseLimits() (settings.Limits, error) {
	var l settings.Limits
	for i, f := range settings.LimitFields {
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(v.limits[i].Text), ",", ""))
		if err != nil || f.Check(n) != nil {
			return settings.Limits{}, fmt.Errorf("%s: enter a whole number from %d to %s", f.Label, f.Min, words.Count(f.Max))
		}
		*f.Of(&l) = n
	}
	return l, nil
}

func (v *settingsView) saveLimits() {
	l, err := v.parseLimits()
	callChecked(v.g, "Save limits", v.limitsError, l, err, edit(v.g.eng, settings.SetLimits))
}

func (v *settingsView) chooseInterval(label string) {
	for _, m := range settings.IntervalChoices {
		if intervalLabel(m) == label && m != v.g.last.IntervalMinutes {
			v.g.call("Set interval", func() error { return v.g.eng.Modify(settings.SetInterval(m)) }, nil)
		}
	}
}

func (v *settingsView) applyListen() {
	addr, err := settings.ParseListen(v.listen.Text)
	allowLAN := v.allowLAN.Checked
	callChecked(v.g, "Set listen address", v.listenError, addr, err,
		func(addr string) error { return v.g.eng.Modify(settings.SetListen(addr, allowLAN)) })
}

func (v *settingsView) applyScope() {
	scope, err := settings.ParseScopeProfile(v.scope.Text)
	callChecked(v.g, "Set platform", v.scopeError, scope, err, edit(v.g.eng, settings.SetScopeProfile))
}

// newSettingCheck is a check box for a boolean setting: a change goes to
// the engine; a refusal shows in the notice line and rerender brings the
// engine's value back.
func newSettingCheck(g *GUI, label string, current func(settings.Settings) bool, set func(bool) error,
	rerender func(status.Snapshot)) *widget.Check {
	return widget.NewCheck(label, func(on bool) {
		if on == current(g.last.Settings) {
			return
		}
		g.call(label, func() error { return set(on) }, func(err error) {
			if err != nil {
				g.notice.set(label + ": " + err.Error())
				rerender(g.last)
			}
		})
	})
}

// showRoots lists the roots as you, by name where known; their names are
// asked for when the roots change.
func (v *settingsView) showRoots(roots []string) {
	if key := strings.Join(roots, " "); key != v.rootsNamed && v.g.names != nil {
		v.rootsNamed = key
		v.g.learnNames(roots, func() { v.showRoots(v.g.last.Frontier.Roots) })
	}
	rows := make([][]string, len(roots))
	for i, r := range roots {
		rows[i] = []string{v.g.rootLabel(r), words.Npub(r), r}
	}
	v.roots.setRows(rows)
}

func (v *settingsView) render(s status.Snapshot) {
	v.data.render(s)
	v.showRoots(s.Frontier.Roots)

	for i, f := range settings.LimitFields {
		v.limits[i].show(strconv.Itoa(*f.Of(&s.Settings.Limits)))
	}
	showChosen(v.interval, intervalLabel(s.IntervalMinutes))
	if v.listen.show(s.Settings.Listen) {
		showChecked(v.allowLAN, s.Settings.AllowLAN)
	}
	v.scope.show(s.Settings.ScopeProfile)
	v.hosts.show(s.Settings.AllowedHosts)
	v.origins.show(s.Settings.AllowedOrigins)
	showChecked(v.startAtLogin, s.Settings.StartAtLogin)
	showChecked(v.notify, s.Settings.Notify)
	if len(s.Settings.RepoSyncServices) == 0 {
		setText(v.repoSync, "off")
	} else {
		setText(v.repoSync, strings.Join(s.Settings.RepoSyncServices, ", "))
	}
}

// syncedEntry is a form entry that follows the engine's value until the
// user edits it, so an update does not overwrite typing in progress.
type syncedEntry struct {
	*entry
	shown string // the engine value last put in the entry
}

func newSyncedEntry(g *GUI) *syncedEntry { return &syncedEntry{entry: newEntry(g)} }

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
