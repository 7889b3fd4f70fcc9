package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// depthBars shows the frontier's authors per depth as bars scaled to the
// largest level, and marks the deepest level reached when a cap cut the walk
// there: the caps stop the walk at its edge.
type depthBars struct {
	rows *barList
	cut  *widget.Label
	root fyne.CanvasObject
}

func newDepthBars() *depthBars {
	b := &depthBars{rows: newBarList(), cut: widget.NewLabel("")}
	b.cut.Importance = widget.WarningImportance
	b.cut.Wrapping = fyne.TextWrapWord
	b.root = container.NewVBox(b.rows.root, b.cut)
	return b
}

func (b *depthBars) show(f status.Frontier) {
	top := 1
	for _, n := range f.ByDepth {
		top = max(top, n)
	}
	rows := make([]bar, len(f.ByDepth))
	for i, n := range f.ByDepth {
		label := words.Hops(i)
		if i == len(f.ByDepth)-1 && len(f.Truncation) > 0 {
			label += " (cut)"
		}
		rows[i] = bar{label: label, value: float64(n), max: float64(top), text: words.People(n)}
	}
	b.rows.show(rows)
	if len(f.Truncation) == 0 {
		b.cut.Hide()
		return
	}
	cuts := make([]string, len(f.Truncation))
	for i, t := range f.Truncation {
		cuts[i] = words.Truncation(t)
	}
	setText(b.cut, "The farthest people are cut by "+strings.Join(cuts, ", "))
	b.cut.Show()
}
