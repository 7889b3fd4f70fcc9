package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// entry is a text entry that passes the window's shortcuts (Alt+N, Ctrl+L)
// on to the window: Fyne gives a shortcut to the focused widget alone, and
// its entry drops the shortcuts it does not know.
type entry struct {
	widget.Entry
	g *GUI
}

func newEntry(g *GUI) *entry {
	e := &entry{Entry: widget.Entry{Wrapping: fyne.TextWrap(fyne.TextTruncateClip)}, g: g}
	e.ExtendBaseWidget(e)
	return e
}

func newMultiLineEntry(g *GUI) *entry {
	e := newEntry(g)
	e.MultiLine = true
	return e
}

func (e *entry) TypedShortcut(s fyne.Shortcut) {
	if run, ok := e.g.shortcuts[s.ShortcutName()]; ok {
		run()
		return
	}
	e.Entry.TypedShortcut(s)
}
