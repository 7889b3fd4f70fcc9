package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
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
	pane   *relayPane // the selected relay in full
	remove *widget.Button
}

// relayColumns fit the window: what a relay is doing in words beside it;
// the engine's figures and the raw error are in the details pane.
var relayColumns = []string{"Relay", "Status", "Events received", "Stored (new)", "Last success"}

func newRelaysView(g *GUI) *relaysView {
	v := &relaysView{g: g}
	v.form = newAddForm(g, "Add relay", "wss://relay.example.com", "Add relay", settings.NormalizeRelayURL,
		func(url string) error { return g.eng.Modify(settings.AddRelay(url)) })
	v.table = newTextTable(relayColumns...).whenEmpty("No relays yet: add one above, as wss://host")
	v.table.ownPane = true
	v.pane = newRelayPane()
	v.remove = widget.NewButton("Remove selected relay", v.removeRelay)
	v.remove.Hide() // it appears with a selection
	v.table.onSelect = func(key string) {
		v.showSelected(g.last)
		if key != "" {
			v.remove.SetText("Remove " + key)
		}
		showIf(v.remove, key != "")
	}
	v.pass = newBarList()
	v.inPass = widget.NewCard("Sync pass", "", v.pass.root)
	v.inPass.Hide()
	split := container.NewVSplit(v.table.root, v.pane.root)
	split.Offset = 0.4 // the table is a few rows; the details need the room
	v.root = container.NewBorder(container.NewVBox(v.form.root, v.inPass), container.NewHBox(v.remove), nil, nil, split)
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
	facts := words.FactsOf(s, v.g.clock)
	rows := make([][]string, len(s.Relays))
	for i, r := range s.Relays {
		rows[i] = []string{r.URL, facts.RelayDoing(r), words.Count(r.EventsFetched), words.Count(r.EventsStored),
			facts.Clock.Relative(r.LastSuccess, "never")}
	}
	v.table.setRows(rows)
	v.showSelected(s)
	v.showPass(s.Relays)
}

// showSelected shows the selected relay of s in the details pane.
func (v *relaysView) showSelected(s status.Snapshot) {
	for i, r := range s.Relays {
		if r.URL == v.table.selected {
			v.pane.show(&s.Relays[i], words.FactsOf(s, v.g.clock))
			return
		}
	}
	v.pane.show(nil, words.Facts{})
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
		text := fmt.Sprintf("%s %s of %s", p.Pass, words.Count(p.Done), words.Plural(p.Total, passKey(p.Pass)))
		if r.OldestReached != 0 {
			text += " · oldest reached " + v.g.clock.Day(r.OldestReached)
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
