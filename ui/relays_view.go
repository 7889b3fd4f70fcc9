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
	v.root = container.NewBorder(v.form.root, container.NewHBox(v.remove), nil, nil, v.table.root)
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
			health += ", retry " + c.relative(r.NextRetry, "")
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
}
