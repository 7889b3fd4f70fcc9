package ui

import (
	"image/color"
	"slices"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// maxColumnWidth caps a column fitted to its content; the selected row's
// full text shows under the table.
const maxColumnWidth = 420

// textTable is a read-only table of text rows under a header row, with an
// optional single-row selection that follows its row's key (the first cell,
// or the keyCol-th where the first is not unique) when the rows change. Columns are as wide as their content (up to
// maxColumnWidth); the selected row is shown in full under the table,
// unless its owner shows the row's details in a pane of its own.
type textTable struct {
	table    *widget.Table
	detail   *widget.Label // the selected row in full
	root     fyne.CanvasObject
	headers  []string
	widths   []float32
	rows     [][]string
	ownPane  bool              // the owner shows the selected row's details; no line under the table
	space    *canvas.Rectangle // sets the height of a fitted table; nil when not fitted
	wheel    *wheelPass        // takes the wheel over a fitted table
	maxRows  int               // the most rows a fitted table grows to
	keyCol   int               // the column whose cell identifies a row
	selected string            // key of the selected row, "" when none
	onSelect func(key string)
	none     *widget.Label // shown instead of the table while it has no rows
}

func newTextTable(headers ...string) *textTable {
	t := &textTable{headers: headers, widths: make([]float32, len(headers))}
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
	t.detail = widget.NewLabel("")
	t.detail.Wrapping = fyne.TextWrapWord
	t.detail.Hide()
	t.none = widget.NewLabel("None")
	t.root = container.NewBorder(nil, t.detail, nil, nil, container.NewStack(t.table, container.NewVBox(t.none)))
	t.showEmpty()
	t.fitColumns()
	t.table.OnSelected = func(id widget.TableCellID) {
		if id.Row < 0 || id.Row >= len(t.rows) {
			return
		}
		t.choose(t.rows[id.Row][t.keyCol])
	}
	return t
}

// whenEmpty is the one line shown in place of the table (its header
// included) while it has no rows: "No rejections".
func (t *textTable) whenEmpty(line string) *textTable {
	t.none.SetText(line)
	return t
}

// showEmpty shows the table, or its one line when it has no rows.
func (t *textTable) showEmpty() {
	showIf(t.table, len(t.rows) > 0)
	showIf(t.none, len(t.rows) == 0)
}

func (t *textTable) choose(key string) {
	t.selected = key
	t.showDetail()
	if t.onSelect != nil {
		t.onSelect(key)
	}
}

// setRows replaces the rows, keeping the selection on the same key or
// dropping it when that row is gone.
func (t *textTable) setRows(rows [][]string) {
	if slices.EqualFunc(rows, t.rows, slices.Equal) {
		t.showDetail() // the details may have changed; a refresh would redraw every visible cell for nothing
		return
	}
	t.rows = rows
	t.showEmpty()
	t.fitColumns()
	t.fitHeight()
	if t.selected != "" {
		at := -1
		for i, row := range rows {
			if row[t.keyCol] == t.selected {
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
	t.showDetail()
	t.table.Refresh()
}

// fitColumns sizes each column to its header and its longest cell.
func (t *textTable) fitColumns() {
	size, pad := theme.TextSize(), 2*theme.InnerPadding()+2
	for col, header := range t.headers {
		w := fyne.MeasureText(header, size, fyne.TextStyle{Bold: true}).Width
		longest := ""
		for _, row := range t.rows {
			if col < len(row) && utf8.RuneCountInString(row[col]) > utf8.RuneCountInString(longest) {
				longest = row[col]
			}
		}
		w = min(max(w, fyne.MeasureText(longest, size, fyne.TextStyle{}).Width)+pad, maxColumnWidth)
		if w != t.widths[col] {
			t.widths[col] = w
			t.table.SetColumnWidth(col, w)
		}
	}
}

// showDetail shows the selected row in full under the table.
func (t *textTable) showDetail() {
	row := t.selectedRow()
	if row == nil || t.ownPane {
		t.detail.Hide()
		t.fitHeight()
		return
	}
	parts := make([]string, 0, len(row))
	for col, text := range row {
		parts = append(parts, t.headers[col]+": "+text)
	}
	setText(t.detail, strings.Join(parts, "  ·  "))
	t.detail.Show()
	t.fitHeight()
}

// selectedRow is the selected row's cells, or nil.
func (t *textTable) selectedRow() []string {
	for _, row := range t.rows {
		if t.selected != "" && row[t.keyCol] == t.selected {
			return row
		}
	}
	return nil
}

// fitted is the table (and its details line) as tall as its rows, up to
// maxRows (it scrolls beyond), inside a box that would otherwise shrink it
// to one row; an empty table is its one line.
func (t *textTable) fitted(maxRows int) fyne.CanvasObject {
	t.space = canvas.NewRectangle(color.Transparent)
	t.maxRows = maxRows
	t.fitHeight()
	t.wheel = newWheelPass(t)
	return container.NewStack(t.space, t.root, t.wheel)
}

// scrollsIn names the page a fitted table lies in: the wheel over the
// table scrolls the page once the table has nothing more to show.
func (t *textTable) scrollsIn(page *container.Scroll) { t.wheel.page = page }

// rowHeight is the height of one table row (and the header) with the gap
// the table leaves between rows (the theme's padding).
func rowHeight() float32 {
	return cellHeight() + theme.Padding()
}

// cellHeight is the height of one cell: a label.
func cellHeight() float32 { return widget.NewLabel("Xy").MinSize().Height }

// fitHeight sizes the space to the header and the rows shown.
func (t *textTable) fitHeight() {
	if t.space == nil {
		return
	}
	h := rowHeight() * float32(1+min(len(t.rows), t.maxRows))
	if len(t.rows) == 0 {
		h = t.none.MinSize().Height
	}
	if t.detail.Visible() {
		h += t.detail.MinSize().Height
	}
	if h != t.space.MinSize().Height {
		t.space.SetMinSize(fyne.NewSize(0, h))
		t.space.Refresh()
	}
}
