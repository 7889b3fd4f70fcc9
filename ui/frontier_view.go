package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
)

// frontierView is the My network tab: the roots, how many authors the walk
// reached at each depth (as bars), which caps cut it, and the people at
// each depth with who brought them in.
type frontierView struct {
	g      *GUI
	root   fyne.CanvasObject
	people *networkList

	roots        *widget.Label
	sessionRoots *widget.Label
	size         *widget.Label
	byDepth      *depthBars
	truncation   *textTable
	notCut       *widget.Label
}

func newFrontierView(g *GUI) *frontierView {
	v := &frontierView{
		g:            g,
		people:       newNetworkList(g),
		roots:        widget.NewLabel(""),
		sessionRoots: widget.NewLabel(""),
		size:         widget.NewLabel(""),
		byDepth:      newDepthBars(),
		truncation:   newTextTable("What cut it", "Left out"),
		notCut:       widget.NewLabel("The walk was not cut by any cap."),
	}
	v.roots.TextStyle.Monospace = true
	summary := widget.NewForm(
		widget.NewFormItem("Roots", v.roots),
		widget.NewFormItem("Client session roots", v.sessionRoots),
		widget.NewFormItem("Frontier size", v.size),
	)
	tables := container.NewGridWithColumns(2,
		widget.NewCard("Size per depth", "", container.NewVScroll(v.byDepth.root)),
		widget.NewCard("Caps that cut", "", container.NewBorder(v.notCut, nil, nil, nil, v.truncation.root)),
	)
	v.root = container.NewBorder(summary, nil, nil, nil, container.NewGridWithRows(2, tables, v.people.root))
	return v
}

func (v *frontierView) render(s status.Snapshot) {
	f := s.Frontier
	if len(f.Roots) == 0 {
		setText(v.roots, "none configured (add one in Settings)")
	} else {
		text := ""
		for i, r := range f.Roots {
			if i > 0 {
				text += "\n"
			}
			text += v.g.rootLabel(r) + ": " + displayKey(r) // a root is the user's own key
		}
		setText(v.roots, text)
	}
	setText(v.sessionRoots, fmt.Sprintf("%d from connected clients", len(f.SessionRoots)))
	setText(v.size, count(f.Size)+" authors")

	v.byDepth.show(f)
	v.people.render(s)

	cuts := make([][]string, len(f.Truncation))
	for i, t := range f.Truncation {
		what, left := capCut(t, s.Settings.Limits)
		cuts[i] = []string{what, left}
	}
	v.truncation.setRows(cuts)
	if len(cuts) == 0 {
		v.notCut.Show()
		v.truncation.root.Hide() // a table only when something was cut
	} else {
		v.notCut.Hide()
		v.truncation.root.Show()
	}
}
