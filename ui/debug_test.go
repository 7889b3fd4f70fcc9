package ui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestDebugTable(t *testing.T) {
	g, _ := newTestGUI(t)
	g.tabs.SelectIndex(1)
	tb := g.relays.table.table
	r, c := tb.Length()
	t.Log(r, c, tb.Size())
	for _, o := range test.LaidOutObjects(tb) {
		if l, ok := o.(*widget.Label); ok {
			t.Log(fmt.Sprintf("%T %q %v %v", o, l.Text, o.Position(), o.Visible()))
		} else {
			t.Log(fmt.Sprintf("%T %v %v", o, o.Position(), o.Size()))
		}
	}
}
