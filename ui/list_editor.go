package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// listEditor edits one list setting of plain strings (service URLs, allowed
// hosts, allowed origins): an addForm, the list as a table, and a button
// that removes the selected entry.
type listEditor struct {
	form   *addForm
	table  *textTable
	remove *widget.Button
	root   fyne.CanvasObject
}

// newListEditor builds the editor; item names one entry in button labels
// ("service URL"), column is the table's title, parse checks typed text with
// the engine's own rule, add and remove call the engine.
func newListEditor(g *GUI, item, column, placeholder string, parse func(string) (string, error), add, remove func(string) error) *listEditor {
	e := &listEditor{
		form:  newAddForm(g, "Add "+item, placeholder, "Add "+item, parse, add),
		table: newTextTable(column).whenEmpty("None"),
	}
	e.remove = selectionButton(e.table, "Remove selected "+item, func(row []string) {
		g.call("Remove "+row[0], func() error { return remove(row[0]) }, nil)
	})
	// room for a few entries; the table scrolls beyond
	e.root = container.NewVBox(e.form.root, e.table.fitted(3), container.NewHBox(e.remove))
	return e
}

// show puts the engine's list in the table.
func (e *listEditor) show(items []string) {
	rows := make([][]string, len(items))
	for i, s := range items {
		rows[i] = []string{s}
	}
	e.table.setRows(rows)
}

// selectionButton is a button that acts on the table's selected row; it
// appears with a selection.
func selectionButton(t *textTable, label string, act func(row []string)) *widget.Button {
	b := widget.NewButton(label, func() {
		if row := t.selectedRow(); row != nil {
			act(row)
		}
	})
	b.Hide()
	t.onSelect = func(key string) { showIf(b, key != "") }
	return b
}
