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

// barList shows labelled bars in two columns (label, then the bar with its
// text beside it), one row per bar; rows are kept across updates and only
// what changed is redrawn. The text is not drawn on the bar: there it
// would cross from the bar's colour to its faded ground, and no one text
// colour reads on both.
type barList struct {
	root *fyne.Container

	labels []*widget.Label
	bars   []*widget.ProgressBar
	texts  []*widget.Label
}

// newTextlessBar is a progress bar without its text (see barList).
func newTextlessBar() *widget.ProgressBar {
	b := widget.NewProgressBar()
	b.TextFormatter = func() string { return "" }
	return b
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
		b := newTextlessBar()
		text := widget.NewLabel("")
		l.labels = append(l.labels, widget.NewLabel(""))
		l.bars = append(l.bars, b)
		l.texts = append(l.texts, text)
		l.root.Add(l.labels[len(l.labels)-1])
		l.root.Add(container.NewBorder(nil, nil, nil, text, b))
	}
	for i, r := range rows {
		setText(l.labels[i], r.label)
		setText(l.texts[i], r.text)
		setProgress(l.bars[i], r.value, r.max)
	}
}
