package ui

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// textTable is a read-only table of text rows under a header row, with an
// optional single-row selection that follows its row's key (the first cell)
// when the rows change.
type textTable struct {
	table    *widget.Table
	headers  []string
	rows     [][]string
	selected string // key of the selected row, "" when none
	onSelect func(key string)
}

func newTextTable(headers []string, widths []float32) *textTable {
	t := &textTable{headers: headers}
	t.table = widget.NewTable(
		func() (int, int) { return len(t.rows), len(t.headers) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, cell fyne.CanvasObject) {
			text := ""
			if id.Row < len(t.rows) && id.Col < len(t.rows[id.Row]) {
				text = t.rows[id.Row][id.Col]
			}
			cell.(*widget.Label).SetText(text)
		},
	)
	t.table.ShowHeaderRow = true
	t.table.CreateHeader = func() fyne.CanvasObject {
		l := widget.NewLabel("")
		l.TextStyle.Bold = true
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}
	t.table.UpdateHeader = func(id widget.TableCellID, cell fyne.CanvasObject) {
		if id.Col >= 0 && id.Col < len(t.headers) {
			cell.(*widget.Label).SetText(t.headers[id.Col])
		}
	}
	for col, w := range widths {
		t.table.SetColumnWidth(col, w)
	}
	t.table.OnSelected = func(id widget.TableCellID) {
		if id.Row < 0 || id.Row >= len(t.rows) {
			return
		}
		t.choose(t.rows[id.Row][0])
	}
	return t
}

func (t *textTable) choose(key string) {
	t.selected = key
	if t.onSelect != nil {
		t.onSelect(key)
	}
}

// setRows replaces the rows, keeping the selection on the same key or
// dropping it when that row is gone.
func (t *textTable) setRows(rows [][]string) {
	if slices.EqualFunc(rows, t.rows, slices.Equal) {
		return // a refresh would redraw every visible cell for nothing
	}
	t.rows = rows
	if t.selected != "" {
		at := -1
		for i, row := range rows {
			if row[0] == t.selected {
				at = i
				break
			}
		}
		if at < 0 {
			t.table.UnselectAll()
			t.choose("")
		} else {
			t.table.Select(widget.TableCellID{Row: at, Col: 0})
		}
	}
	t.table.Refresh()
}

// selectedRow is the selected row's cells, or nil.
func (t *textTable) selectedRow() []string {
	for _, row := range t.rows {
		if t.selected != "" && row[0] == t.selected {
			return row
		}
	}
	return nil
}

// fixedHeight gives a table a minimum height inside a box that would
// otherwise shrink it to one row.
func fixedHeight(table *widget.Table, height float32) fyne.CanvasObject {
	space := canvas.NewRectangle(color.Transparent)
	space.SetMinSize(fyne.NewSize(0, height))
	return container.NewStack(space, table)
}
