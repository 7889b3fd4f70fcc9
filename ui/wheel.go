package ui

import (
	"reflect"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// wheelPass lies over a table inside a scrolled page and takes its wheel
// events (Fyne gives them to the topmost scrollable under the pointer,
// which was the table): the table scrolls while it has rows out of view
// in that direction, then the page does. Taps and hovers are not its
// interfaces, so they reach the table below.
type wheelPass struct {
	widget.BaseWidget
	table *textTable
	page  *container.Scroll // nil: the table scrolls alone
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
	want := w.table.offset() - ev.Scrolled.DY
	to := min(max(want, 0), w.table.hiddenHeight())
	w.table.table.ScrollToOffset(fyne.NewPos(0, to))
	if rest := want - to; rest != 0 && w.page != nil {
		w.page.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -rest}})
	}
}

// offset is how far the table is scrolled down, as the table itself keeps
// it: its scrollbar moves it too, so a copy kept here would go stale after a
// drag. Fyne 2.7 keeps it unexported with no getter, so it is read by name;
// TestWheelFollowsTheTablesScrollbar fails if a Fyne upgrade renames it.
func (t *textTable) offset() float32 {
	f := reflect.ValueOf(t.table).Elem().FieldByName("offset")
	if !f.IsValid() {
		return 0
	}
	return float32(f.FieldByName("Y").Float())
}

// hiddenHeight is how much of the table's rows is out of view: the rows
// and the gaps between them, less what the table shows under its header.
func (t *textTable) hiddenHeight() float32 {
	if len(t.rows) == 0 {
		return 0
	}
	rows := rowHeight()*float32(len(t.rows)) - theme.Padding()
	return max(0, rows-(t.table.Size().Height-cellHeight()))
}
