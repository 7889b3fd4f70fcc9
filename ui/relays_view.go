package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// relaysView is the Relays tab: add and remove sync relays, each relay's
// share of the running pass as a bar, and each relay's health and progress.
type relaysView struct {
	g    *GUI
	root fyne.CanvasObject

	form   *addForm
	pass   *barList
	inPass *widget.Card // the bars, shown during a pass only
	table  *textTable
	remove *widget.Button
}

// relayColumns fit the window: what a relay is doing in words beside it;
// the engine's figures and the raw error are in the selected row's details.
var relayColumns = []string{"Relay", "Status", "Events received", "Last success"}

func newRelaysView(g *GUI) *relaysView {
	v := &relaysView{g: g}
	v.form = newAddForm(g, "Add relay", "wss://relay.example.com", "Add relay", settings.NormalizeRelayURL,
		func(url string) error { return g.eng.Modify(settings.AddRelay(url)) })
	v.table = newTextTable(relayColumns...)
	v.remove = widget.NewButton("Remove selected relay", v.removeRelay)
	v.remove.Disable()
	v.table.onSelect = func(key string) {
		if key == "" {
			v.remove.SetText("Remove selected relay")
			v.remove.Disable()
			return
		}
		v.remove.SetText("Remove " + key)
		v.remove.Enable()
	}
	v.pass = newBarList()
	v.inPass = widget.NewCard("Sync pass", "", v.pass.root)
	v.inPass.Hide()
	v.root = container.NewBorder(container.NewVBox(v.form.root, v.inPass), container.NewHBox(v.remove), nil, nil, v.table.root)
	return v
}

func (v *relaysView) removeRelay() {
	row := v.table.selectedRow()
	if row == nil {
		return
	}
	relay := row[0]
	v.g.call("Remove "+relay, func() error { return v.g.eng.Modify(settings.RemoveRelay(relay)) }, nil)
}

func (v *relaysView) render(s status.Snapshot) {
	c := v.g.clock
	rows := make([][]string, len(s.Relays))
	exact := make([][]string, len(s.Relays))
	details := make([]string, len(s.Relays))
	for i, r := range s.Relays {
		rows[i] = []string{r.URL, relayDoing(r, c), count(r.EventsFetched), c.relative(r.LastSuccess, "never")}
		exact[i] = make([]string, len(relayColumns))
		exact[i][3] = c.stamp(r.LastSuccess, "")
		details[i] = relayDetails(r, c)
	}
	v.table.setExact(exact)
	v.table.setDetails(details)
	v.table.setRows(rows)
	v.showPass(s.Relays)
}

// relayDoing is a relay's state in words: connected, or what went wrong and
// when we retry, or waiting for the next pass.
func relayDoing(r status.Relay, c clock) string {
	switch {
	case r.Connected:
		return "connected"
	case r.LastError != "":
		return relayTrouble(r, c)
	case r.Health == status.HealthDead:
		return "given up after a day of failures — retrying daily"
	}
	return "not connected (connects for each pass)"
}

// relayDetails are the engine's figures for a relay, for its details line.
func relayDetails(r status.Relay, c clock) string {
	d := fmt.Sprintf("Health: %s  ·  Connection: %s  ·  Failures in a row: %d  ·  Oldest reached: %s  ·  Newest reached: %s",
		r.Health, r.State, r.Failures, c.stamp(r.OldestReached, "—"), c.stamp(r.NewestReached, "—"))
	if r.LastError != "" {
		d += "  ·  Last error (raw): " + r.LastError
	}
	return d
}

// showPass shows a bar per relay taking part in the running pass:
// "trust 12 of 40 authors · oldest reached 2024-03-01".
func (v *relaysView) showPass(relays []status.Relay) {
	var bars []bar
	for _, r := range relays {
		p := r.Progress
		if p == nil {
			continue
		}
		text := fmt.Sprintf("%s %s of %s", p.Pass, count(p.Done), plural(p.Total, passKey(p.Pass)))
		if r.OldestReached != 0 {
			text += " · oldest reached " + v.g.clock.day(r.OldestReached)
		}
		bars = append(bars, bar{label: r.URL, value: float64(min(p.Done, p.Total)), max: float64(max(p.Total, 1)), text: text})
	}
	v.pass.show(bars)
	if len(bars) == 0 {
		v.inPass.Hide()
	} else {
		v.inPass.Show()
	}
}

// passKey names what a pass family counts: X accounts for discovery,
// authors for the others.
func passKey(family string) string {
	if family == "discovery" {
		return "X account"
	}
	return "author"
}
