package ui

import (
	"fmt"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The wheel over a table in a scrolled page: a table showing all its rows
// passes the wheel to the page at once; a longer one scrolls itself to its
// end first, then the page.
func TestWheelOverATableScrollsThePage(t *testing.T) {
	g, _ := newTestGUI(t, tabSettings)
	g.showTab(tabSettings, 1200, 400)
	page := g.settings.root.(*container.Scroll)
	down := &fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -60}}
	g.settings.roots.wheel.Scrolled(down) // 2 roots, all in view
	if page.Offset.Y != 60 {
		t.Errorf("page offset %v after the wheel over a short table, want 60", page.Offset.Y)
	}

	long := newTextTable("Row")
	rows := make([][]string, 20)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i)}
	}
	long.setRows(rows)
	tall := long.fitted(5)
	box := container.NewVScroll(container.NewVBox(tall, fixedSpace(2000)))
	long.scrollsIn(box)
	box.Resize(fyne.NewSize(400, 300))
	hidden := long.hiddenHeight()
	if hidden <= 0 {
		t.Fatalf("a 20-row table fitted to 5 hides %v", hidden)
	}
	for long.offset() < hidden {
		long.wheel.Scrolled(down)
		if box.Offset.Y != 0 && long.offset() < hidden {
			t.Fatalf("the page scrolled (%v) before the table reached its end (%v of %v)", box.Offset.Y, long.offset(), hidden)
		}
	}
	long.wheel.Scrolled(down)
	if box.Offset.Y == 0 {
		t.Error("the page did not scroll once the table was at its end")
	}
	up := &fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 10_000}}
	long.wheel.Scrolled(up)
	if long.offset() != 0 || box.Offset.Y != 0 {
		t.Errorf("a long wheel up left the table at %v, the page at %v", long.offset(), box.Offset.Y)
	}
}

// fixedSpace is an empty object of the given height.
func fixedSpace(height float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(1, height))
	return r
}

// The wheel starts from where the table really is: after the table's own
// scrollbar was dragged to its end, the next wheel step down goes to the
// page, and a step up moves the table up from its end.
func TestWheelFollowsTheTablesScrollbar(t *testing.T) {
	test.NewTempApp(t)
	long := newTextTable("Row")
	rows := make([][]string, 20)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i)}
	}
	long.setRows(rows)
	box := container.NewVScroll(container.NewVBox(long.fitted(5), fixedSpace(2000)))
	long.scrollsIn(box)
	w := test.NewWindow(box)
	defer w.Close()
	w.Resize(fyne.NewSize(400, 300))
	hidden := long.hiddenHeight()

	bar := tableScrollbar(t, long.table)
	bar.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DY: 10_000}}) // the bar to its end
	bar.DragEnd()
	if got := long.offset(); got != hidden {
		t.Fatalf("the table is at %v after dragging its bar to the end, want %v", got, hidden)
	}
	long.wheel.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: -60}})
	if box.Offset.Y != 60 {
		t.Errorf("the page is at %v after a wheel step down over a table at its end, want 60", box.Offset.Y)
	}
	long.wheel.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 20}})
	if got := long.offset(); got != hidden-20 {
		t.Errorf("a wheel step up took the table to %v, want %v (from its end)", got, hidden-20)
	}
}

// tableScrollbar is the vertical scrollbar the table draws, found by its
// type (Fyne does not export it), so that a test drags it as a user does.
func tableScrollbar(t *testing.T, table *widget.Table) fyne.Draggable {
	t.Helper()
	var bars []fyne.Draggable
	eachObject(table, func(o fyne.CanvasObject) bool {
		if d, ok := o.(fyne.Draggable); ok && fmt.Sprintf("%T", o) == "*widget.scrollBar" {
			bars = append(bars, d)
		}
		return true
	})
	for _, b := range bars {
		if b.(fyne.CanvasObject).Size().Height > b.(fyne.CanvasObject).Size().Width { // the vertical one
			return b
		}
	}
	t.Fatalf("no vertical scrollbar among the table's %d bars", len(bars))
	return nil
}
