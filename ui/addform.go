package ui

import (
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"fyne.io/fyne/v2"
)

// addForm is an entry with an add button for one list (relays, roots,
// service URLs): the typed text is checked by parse and refused inline with
// nothing sent, or handed to add off the UI thread; the entry clears when
// the engine took it, unless the user typed on meanwhile.
type addForm struct {
	g      *GUI
	what   string
	parse  func(string) (string, error)
	add    func(string) error
	entry  *entry
	button *widget.Button
	err    *inlineError
	root   fyne.CanvasObject
}

func newAddForm(g *GUI, what, placeholder, label string, parse func(string) (string, error), add func(string) error) *addForm {
	f := &addForm{g: g, what: what, parse: parse, add: add, err: newInlineError()}
	f.entry = newEntry(g)
	f.entry.SetPlaceHolder(placeholder)
	f.entry.OnSubmitted = func(string) { f.submit() }
	f.button = widget.NewButton(label, f.submit)
	f.root = container.NewVBox(container.NewBorder(nil, nil, nil, f.button, f.entry), f.err.label)
	return f
}

func (f *addForm) submit() {
	typed := f.entry.Text
	value, err := f.parse(typed)
	if err != nil {
		f.err.set(err.Error())
		return
	}
	f.err.clear()
	f.button.Disable()
	f.g.call(f.what, func() error { return f.add(value) }, func(err error) {
		f.button.Enable()
		if err != nil {
			f.err.set(err.Error())
			return
		}
		if f.entry.Text == typed {
			f.entry.SetText("")
		}
	})
}
