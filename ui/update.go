package ui

import "fyne.io/fyne/v2/widget"

// Snapshots arrive several times a second during a sync, and most of what
// they show has not changed. Refreshing a widget re-lays out and
// re-rasterizes its text on the UI thread, so these setters leave a widget
// alone when it already shows the value: the loop then spends its time on
// what changed only.

// setText shows text in l.
func setText(l *widget.Label, text string) {
	if l.Text != text {
		l.SetText(text)
	}
}

// setButtonText shows text on b.
func setButtonText(b *widget.Button, text string) {
	if b.Text != text {
		b.SetText(text)
	}
}

// showSelected selects option in r without calling its OnChanged: showing
// the engine's choice is not a new choice.
func showSelected(r *widget.RadioGroup, option string) {
	if r.Selected != option {
		r.Selected = option
		r.Refresh()
	}
}

// showChosen is showSelected for a drop-down.
func showChosen(s *widget.Select, option string) {
	if s.Selected != option {
		s.Selected = option
		s.Refresh()
	}
}

// showChecked sets c without calling its OnChanged.
func showChecked(c *widget.Check, on bool) {
	if c.Checked != on {
		c.Checked = on
		c.Refresh()
	}
}

// setProgress shows value of max in p.
func setProgress(p *widget.ProgressBar, value, max float64) {
	if p.Value != value || p.Max != max {
		p.Max = max
		p.SetValue(value)
	}
}
