package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// relaysView is the Relays tab: add and remove sync relays, and each
// relay's health and progress.
type relaysView struct {
	g    *GUI
	root fyne.CanvasObject

	form   *addForm
	table  *textTable
	remove *widget.Button
}

var relayColumns = []string{
	"Relay", "Health", "State", "Connected", "Last success", "Events fetched",
	"Oldest reached", "Newest reached", "Failures", "Last error",
}

func newRelaysView(g *GUI) *relaysView {
	v := &relaysView{g: g}
	v.form = newAddForm(g, "Add relay", "wss://relay.example.com", "Add relay", settings.NormalizeRelayURL,
		func(url string) error { return g.eng.AddRelay(url) })
	v.table = newTextTable(relayColumns, []float32{210, 170, 110, 90, 140, 110, 140, 140, 70, 300})
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
	v.root = container.NewBorder(v.form.root, container.NewHBox(v.remove), nil, nil, v.table.table)
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
	for i, r := range s.Relays {
		connected := "no"
		if r.Connected {
			connected = "yes"
		}
		health := r.Health
		if r.NextRetry != 0 && !r.Connected {
			health += ", retry " + c.relative(r.NextRetry, "")
		}
		lastError := r.LastError
		if lastError == "" {
			lastError = "—"
		}
		rows[i] = []string{
			r.URL, health, r.State, connected, c.stamp(r.LastSuccess, "never"), count(r.EventsFetched),
			c.stamp(r.OldestReached, "—"), c.stamp(r.NewestReached, "—"), fmt.Sprint(r.Failures), lastError,
		}
	}
	v.table.setRows(rows)
}
