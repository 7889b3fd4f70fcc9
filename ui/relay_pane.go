package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
)

// relayFacts are the rows of the relay details pane, in order.
var relayFacts = []string{"Status", "Events received", "Events stored (new to us)", "Last success", "Connection", "Health", "Failures in a row",
	"Next retry", "Oldest reached", "Newest reached", "Full refresh"}

// relayPane is the details of the relay selected on the Relays tab: what
// the table says in short, in full, with the engine's figures and the raw
// error, in two columns so that it fits below the table.
type relayPane struct {
	root     fyne.CanvasObject
	hint     *widget.Label // shown while no relay is selected
	facts    *fyne.Container
	title    *widget.Label
	values   map[string]*widget.Label // by fact
	rawError *widget.Label
}

func newRelayPane() *relayPane {
	p := &relayPane{
		hint:     widget.NewLabel("Select a relay to see its details."),
		title:    widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		values:   map[string]*widget.Label{},
		rawError: widget.NewLabel(""),
	}
	p.rawError.Wrapping = fyne.TextWrapWord
	halves := [2]*widget.Form{widget.NewForm(), widget.NewForm()}
	for i, fact := range relayFacts {
		value := widget.NewLabel("")
		value.Wrapping = fyne.TextWrapWord
		p.values[fact] = value
		halves[i*2/len(relayFacts)].Append(fact, value)
	}
	grid := container.NewGridWithColumns(2, halves[0], halves[1])
	p.facts = container.NewVBox(p.title, grid, p.rawError)
	p.root = widget.NewCard("Details", "", container.NewVScroll(container.NewVBox(p.hint, p.facts)))
	p.show(nil, clock{})
	return p
}

// show shows r's details, or the hint when r is nil.
func (p *relayPane) show(r *status.Relay, c clock) {
	if r == nil {
		p.hint.Show()
		p.facts.Hide()
		return
	}
	p.hint.Hide()
	setText(p.title, r.URL)
	lastSuccess := c.relative(r.LastSuccess, "never")
	if r.LastSuccess != 0 {
		lastSuccess += " (" + c.stamp(r.LastSuccess, "") + ")"
	}
	nextRetry := "—"
	if r.NextRetry != 0 && !r.Connected {
		nextRetry = c.retrying(r.NextRetry) + " (" + c.stamp(r.NextRetry, "") + ")"
	}
	for fact, text := range map[string]string{
		"Status":                    relayDoing(*r, c),
		"Events received":           count(r.EventsFetched),
		"Events stored (new to us)": count(r.EventsStored),
		"Last success":              lastSuccess,
		"Connection":                r.State,
		"Health":                    r.Health,
		"Failures in a row":         fmt.Sprint(r.Failures),
		"Next retry":                nextRetry,
		"Oldest reached":            c.stamp(r.OldestReached, "—"),
		"Newest reached":            c.stamp(r.NewestReached, "—"),
		"Full refresh":              refreshWords(r.Refresh),
	} {
		setText(p.values[fact], text)
	}
	if r.LastError == "" {
		p.rawError.Hide()
	} else {
		setText(p.rawError, "Last error, as the connection reported it: "+r.LastError)
		p.rawError.Show()
	}
	p.facts.Show()
}

// refreshWords says how the relay's last daily full refresh went.
func refreshWords(r status.Refresh) string {
	switch r.NIP77 {
	case status.NIP77Used:
		return fmt.Sprintf("reconciled with NIP-77: %s settled", plural(int(r.IDsReconciled), "id"))
	case status.NIP77Unsupported:
		return "paged (the relay refused NIP-77)"
	}
	return "not done yet"
}
