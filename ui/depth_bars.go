package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
)

// depthBars shows the frontier's authors per depth as bars scaled to the
// largest level, and marks the deepest level reached when a cap cut the walk
// there: the caps stop the walk at its edge.
type depthBars struct {
	rows *fyne.Container // label, bar; two columns
	cut  *widget.Label
	root fyne.CanvasObject

	labels []*widget.Label
	bars   []*widget.ProgressBar
	counts []int // what each bar's text shows
}

func newDepthBars() *depthBars {
	b := &depthBars{rows: container.New(layout.NewFormLayout()), cut: widget.NewLabel("")}
	b.cut.Importance = widget.WarningImportance
	b.cut.Wrapping = fyne.TextWrapWord
	b.root = container.NewVBox(b.rows, b.cut)
	return b
}

func (b *depthBars) show(f status.Frontier) {
	if n := len(f.ByDepth); len(b.bars) > n {
		b.rows.Objects = b.rows.Objects[:2*n]
		b.labels, b.bars, b.counts = b.labels[:n], b.bars[:n], b.counts[:n]
		b.rows.Refresh()
	}
	for len(b.bars) < len(f.ByDepth) {
		i := len(b.bars)
		bar := widget.NewProgressBar()
		bar.TextFormatter = func() string { return plural(b.counts[i], "author") }
		b.labels = append(b.labels, widget.NewLabel(""))
		b.bars = append(b.bars, bar)
		b.counts = append(b.counts, 0)
		b.rows.Add(b.labels[i])
		b.rows.Add(bar)
	}
	top := 1
	for _, n := range f.ByDepth {
		top = max(top, n)
	}
	for i := range b.bars {
		b.counts[i] = f.ByDepth[i]
		label := fmt.Sprintf("depth %d", i)
		if i == 0 {
			label = "roots"
		}
		if i == len(f.ByDepth)-1 && len(f.Truncation) > 0 {
			label += " (cut)"
		}
		setText(b.labels[i], label)
		setProgress(b.bars[i], float64(f.ByDepth[i]), float64(top))
	}
	if len(f.Truncation) == 0 {
		b.cut.Hide()
		return
	}
	cuts := make([]string, len(f.Truncation))
	for i, t := range f.Truncation {
		cuts[i] = truncationWords(t)
	}
	setText(b.cut, "The deepest level is cut by "+strings.Join(cuts, ", "))
	b.cut.Show()
}
