package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
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
	p.show(nil, words.Facts{})
	return p
}

// show shows r's details, or the hint when r is nil.
func (p *relayPane) show(r *status.Relay, facts words.Facts) {
	c := facts.Clock
	if r == nil {
		p.hint.Show()
		p.facts.Hide()
		return
	}
	p.hint.Hide()
	setText(p.title, r.URL)
	lastSuccess := c.Relative(r.LastSuccess, "never")
	if r.LastSuccess != 0 {
		lastSuccess += " (" + c.Stamp(r.LastSuccess, "") + ")"
	}
	nextRetry := facts.Retry(*r)
	if nextRetry == "" {
		nextRetry = "—"
	}
	for fact, text := range map[string]string{
		"Status":                    facts.RelayDoing(*r),
		"Events received":           words.Count(r.EventsFetched),
		"Events stored (new to us)": words.Count(r.EventsStored),
		"Last success":              lastSuccess,
		"Connection":                words.Connection(r.State),
		"Health":                    words.Health(r.Health),
		"Failures in a row":         fmt.Sprint(r.Failures),
		"Next retry":                nextRetry,
		"Oldest reached":            c.Stamp(r.OldestReached, "—"),
		"Newest reached":            c.Stamp(r.NewestReached, "—"),
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
		return fmt.Sprintf("reconciled with NIP-77: %s settled", words.Plural(int(r.IDsReconciled), "id"))
	case status.NIP77Unsupported:
		return "paged (the relay refused NIP-77)"
	}
	return "not done yet"
}
