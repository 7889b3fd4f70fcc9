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

	entry    *widget.Entry
	add      *widget.Button
	addError *inlineError
	table    *textTable
	remove   *widget.Button
}

var relayColumns = []string{
	"Relay", "Health", "State", "Connected", "Last success", "Events fetched",
	"Oldest reached", "Newest reached", "Failures", "Last error",
}

func newRelaysView(g *GUI) *relaysView {
	v := &relaysView{g: g, addError: newInlineError()}
	v.entry = widget.NewEntry()
	v.entry.SetPlaceHolder("wss://relay.example.com")
	v.entry.OnSubmitted = func(string) { v.addRelay() }
	v.add = widget.NewButton("Add relay", v.addRelay)
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
	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, v.add, v.entry),
		v.addError.label,
	)
	v.root = container.NewBorder(top, container.NewHBox(v.remove), nil, nil, v.table.table)
	return v
}

func (v *relaysView) addRelay() {
	typed := v.entry.Text
	relay, err := settings.NormalizeRelayURL(typed)
	if err != nil {
		v.addError.set(err.Error())
		return
	}
	v.addError.clear()
	v.add.Disable()
	v.g.call("Add relay", func() error { return v.g.eng.AddRelay(relay) }, func(err error) {
		v.add.Enable()
		if err != nil {
			v.addError.set(err.Error())
			return
		}
		if v.entry.Text == typed { // unless the user typed on meanwhile
			v.entry.SetText("")
		}
	})
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
