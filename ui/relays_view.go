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

// relayColumns put the last error next to the relay, in view without
// scrolling sideways.
var relayColumns = []string{
	"Relay", "Health", "Last error", "State", "Connected", "Last success", "Events fetched",
	"Oldest reached", "Newest reached", "Failures",
}

func newRelaysView(g *GUI) *relaysView {
	v := &relaysView{g: g}
	v.form = newAddForm(g, "Add relay", "wss://relay.example.com", "Add relay", settings.NormalizeRelayURL,
		func(url string) error { return g.eng.AddRelay(url) })
	v.table = newTextTable(relayColumns...)
	v.table.table.StickyColumnCount = 1 // the relay's URL stays in view while scrolling sideways
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
	v.g.call("Remove "+relay, func() error { return v.g.eng.RemoveRelay(relay) }, nil)
}

func (v *relaysView) render(s status.Snapshot) {
	c := v.g.clock
	rows := make([][]string, len(s.Relays))
	exact := make([][]string, len(s.Relays))
	for i, r := range s.Relays {
		connected := "no"
		if r.Connected {
			connected = "yes"
		}
		health := r.Health
		if r.NextRetry != 0 && !r.Connected {
			health += ", " + c.retry(r.NextRetry)
		}
		lastError := r.LastError
		if lastError == "" {
			lastError = "—"
		}
		rows[i] = []string{
			r.URL, health, lastError, r.State, connected, c.relative(r.LastSuccess, "never"), count(r.EventsFetched),
			c.stamp(r.OldestReached, "—"), c.relative(r.NewestReached, "—"), fmt.Sprint(r.Failures),
		}
		exact[i] = make([]string, len(relayColumns))
		exact[i][5], exact[i][8] = c.stamp(r.LastSuccess, ""), c.stamp(r.NewestReached, "")
	}
	v.table.setExact(exact)
	v.table.setRows(rows)
	v.showPass(s.Relays)
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
