package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// bar is one row of a barList: a label, and value of max as a bar with
// text on it.
type bar struct {
	label      string
	value, max float64
	text       string
}

// barList shows labelled bars in two columns (label, bar), one row per
// bar; rows are kept across updates and only what changed is redrawn.
type barList struct {
	root *fyne.Container

	labels []*widget.Label
	bars   []*widget.ProgressBar
	texts  []string // what each bar's text shows
}

func newBarList() *barList {
	return &barList{root: container.New(layout.NewFormLayout())}
}

func (l *barList) show(rows []bar) {
	if n := len(rows); len(l.bars) > n {
		l.root.Objects = l.root.Objects[:2*n]
		l.labels, l.bars, l.texts = l.labels[:n], l.bars[:n], l.texts[:n]
		l.root.Refresh()
	}
	for len(l.bars) < len(rows) {
		i := len(l.bars)
		b := widget.NewProgressBar()
		b.TextFormatter = func() string { return l.texts[i] }
		l.labels = append(l.labels, widget.NewLabel(""))
		l.bars = append(l.bars, b)
		l.texts = append(l.texts, "")
		l.root.Add(l.labels[i])
		l.root.Add(b)
	}
	for i, r := range rows {
		setText(l.labels[i], r.label)
		b := l.bars[i]
		if b.Value != r.value || b.Max != r.max || l.texts[i] != r.text {
			b.Value, b.Max, l.texts[i] = r.value, r.max, r.text
			b.Refresh()
		}
	}
}
