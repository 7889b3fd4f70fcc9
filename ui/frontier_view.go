package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
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
}

// maxLimitsReached is room for every limit that can stop the walk or a
// pass (status.Reason… of the caps and the heap).
const maxLimitsReached = 9

func newFrontierView(g *GUI) *frontierView {
	v := &frontierView{
		g:            g,
		people:       newNetworkList(g),
		roots:        widget.NewLabel(""),
		sessionRoots: widget.NewLabel(""),
		size:         widget.NewLabel(""),
		byDepth:      newDepthBars(),
		truncation: newTextTable("What stopped it", "Left out").
			whenEmpty("No limit stopped it: everyone your network trusts is followed."),
	}
	v.roots.TextStyle.Monospace = true
	summary := widget.NewForm(
		widget.NewFormItem("You", v.roots),
		widget.NewFormItem("Added by apps", v.sessionRoots),
		widget.NewFormItem("People followed", v.size),
	)
	// the counts and limits as tall as they are; the people get the rest
	tables := container.NewGridWithColumns(2,
		widget.NewCard("People at each distance", "", v.byDepth.root),
		widget.NewCard("Limits reached", "", v.truncation.fitted(maxLimitsReached)),
	)
	v.root = container.NewBorder(container.NewVBox(summary, tables), nil, nil, nil, v.people.root)
	return v
}

func (v *frontierView) render(s status.Snapshot) {
	f := s.Frontier
	if len(f.Roots) == 0 {
		setText(v.roots, "no root yet (add your npub in Settings)")
	} else {
		text := ""
		for i, r := range f.Roots {
			if i > 0 {
				text += "\n"
			}
			if name := v.g.known[r]; name != "" { // a root is the user's own key
				text += name + ": "
			}
			text += words.Npub(r)
		}
		setText(v.roots, text)
	}
	if n := len(f.SessionRoots); n == 0 {
		setText(v.sessionRoots, "nobody: no connected app asks from its own people now")
	} else {
		setText(v.sessionRoots, fmt.Sprintf("%s whose networks connected apps asked for (while they stay connected)", words.People(n)))
	}
	setText(v.size, words.People(f.Size))

	v.byDepth.show(f)
	v.people.render(s)

	cuts := make([][]string, len(f.Truncation))
	for i, t := range f.Truncation {
		what, left := words.CapCut(t, s.Settings.Limits)
		cuts[i] = []string{what, left}
	}
	v.truncation.setRows(cuts)
}
