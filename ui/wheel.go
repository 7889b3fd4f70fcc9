package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// wheelPass lies over a table inside a scrolled page and takes its wheel
// events (Fyne gives them to the topmost scrollable under the pointer,
// which was the table): the table scrolls while it has rows out of view
// in that direction, then the page does. Taps and hovers are not its
// interfaces, so they reach the table below.
type wheelPass struct {
	widget.BaseWidget
	table  *textTable
	page   *container.Scroll // nil: the table scrolls alone
	offset float32           // the table's vertical offset, as this widget moved it
}

func newWheelPass(t *textTable) *wheelPass {
	w := &wheelPass{table: t}
	w.ExtendBaseWidget(w)
	return w
}

func (w *wheelPass) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// Scrolled scrolls the table by the wheel's step, and the page by what the
// table could not take.
func (w *wheelPass) Scrolled(ev *fyne.ScrollEvent) {
	hidden := w.table.hiddenHeight()
	want := w.offset - ev.Scrolled.DY
	w.offset = min(max(want, 0), hidden)
	w.table.table.ScrollToOffset(fyne.NewPos(0, w.offset))
	if rest := want - w.offset; rest != 0 && w.page != nil {
		w.page.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -rest}})
	}
}

// hiddenHeight is how much of the table's rows is out of view.
func (t *textTable) hiddenHeight() float32 {
	row := rowHeight()
	shown := t.table.Size().Height - row // the header
	return max(0, row*float32(len(t.rows))-shown)
}
