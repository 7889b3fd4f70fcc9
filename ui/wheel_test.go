package ui

import (
	"fmt"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
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
	for long.wheel.offset < hidden {
		long.wheel.Scrolled(down)
		if box.Offset.Y != 0 && long.wheel.offset < hidden {
			t.Fatalf("the page scrolled (%v) before the table reached its end (%v of %v)", box.Offset.Y, long.wheel.offset, hidden)
		}
	}
	long.wheel.Scrolled(down)
	if box.Offset.Y == 0 {
		t.Error("the page did not scroll once the table was at its end")
	}
	up := &fyne.ScrollEvent{Scrolled: fyne.Delta{DY: 10_000}}
	long.wheel.Scrolled(up)
	if long.wheel.offset != 0 || box.Offset.Y != 0 {
		t.Errorf("a long wheel up left the table at %v, the page at %v", long.wheel.offset, box.Offset.Y)
	}
}

// fixedSpace is an empty object of the given height.
func fixedSpace(height float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(1, height))
	return r
}
