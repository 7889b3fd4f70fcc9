package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"dtp-personal/engine/resolver"
)

// Sizes of the path picture.
const (
	pathColumnWidth = 190 // one hop
	pathRowHeight   = 48  // a node and its label under it
	pathNodeRadius  = 6
	pathMaxPaths    = 12 // more are listed in words below the picture
	pathLabelRunes  = 22
)

// pathPicture draws an answer's paths as nodes and edges: you → … → the
// people who spoke → the subject, one column per hop. Hops are trust in
// someone's judgement (green); the last edge is what the speaker said of the
// subject (green trusts, red distrusts, grey neither).
type pathPicture struct {
	root  *fyne.Container
	lines []*canvas.Line // the edges drawn, for tests
	texts []*canvas.Text // the node labels drawn, for tests
}

func newPathPicture() *pathPicture {
	return &pathPicture{root: container.NewWithoutLayout()}
}

// nodeAt is a node's place: its column (hop) and row.
type nodeAt struct{ col, row int }

// show draws a's paths, naming people with person.
func (p *pathPicture) show(a resolver.Answer, person func(string) string) {
	paths := a.Paths[:min(len(a.Paths), pathMaxPaths)]
	p.lines, p.texts = nil, nil
	if len(paths) == 0 {
		p.root.Objects = nil
		p.root.Refresh()
		p.root.Hide()
		return
	}
	said := map[string]int{} // each speaker's value at their nearest depth
	nearest := map[string]int{}
	for _, e := range a.Evidence {
		if d, seen := nearest[e.Author]; !seen || e.Depth < d {
			nearest[e.Author], said[e.Author] = e.Depth, e.Value
		}
	}

	// Each path has its own row, so that an edge along a row passes no
	// other path's node; a person already drawn in a column (a shared
	// root, a shared hop) is drawn once, where first met.
	places := map[nodeAt]string{}     // who is drawn where
	index := map[int]map[string]int{} // column -> person -> row
	place := func(col, row int, key string) nodeAt {
		if index[col] == nil {
			index[col] = map[string]int{}
		}
		if at, ok := index[col][key]; ok {
			return nodeAt{col, at}
		}
		index[col][key] = row
		places[nodeAt{col, row}] = key
		return nodeAt{col, row}
	}
	subjectCol := 0
	for _, path := range paths {
		subjectCol = max(subjectCol, len(path))
	}
	var objects []fyne.CanvasObject
	trust, distrust, neither := theme.Color(theme.ColorNameSuccess), theme.Color(theme.ColorNameError), theme.Color(theme.ColorNameDisabled)
	subject := place(subjectCol, 0, a.Subject)
	for row, path := range paths {
		var prev *nodeAt
		for i, key := range path {
			at := place(i, row, key)
			if prev != nil {
				objects = append(objects, p.edge(*prev, at, trust))
			}
			prev = &at
		}
		edge := neither
		switch speaker := path[len(path)-1]; {
		case said[speaker] > 0:
			edge = trust
		case said[speaker] < 0:
			edge = distrust
		}
		objects = append(objects, p.edge(*prev, subject, edge))
	}
	for at, key := range places {
		label := person(key)
		if key == a.Subject {
			label = subjectLabel(a.Subject, person)
		}
		objects = append(objects, p.node(at, label)...)
	}
	space := canvas.NewRectangle(color.Transparent)
	space.Resize(fyne.NewSize(float32(subjectCol+1)*pathColumnWidth, float32(len(paths))*pathRowHeight))
	space.SetMinSize(space.Size())
	p.root.Objects = append([]fyne.CanvasObject{space}, objects...)
	p.root.Show()
	p.root.Refresh()
}

// subjectLabel names the subject: a person by name, else what was asked.
func subjectLabel(subject string, person func(string) string) string {
	if len(subject) == 64 {
		return person(subject)
	}
	return subject
}

// centre is a node's centre on the picture: mid-column, near the top of
// its row, its label under it, so that no edge runs through a label.
func (at nodeAt) centre() fyne.Position {
	return fyne.NewPos(float32(at.col)*pathColumnWidth+pathColumnWidth/2, float32(at.row)*pathRowHeight+pathNodeRadius+4)
}

func (p *pathPicture) edge(from, to nodeAt, c color.Color) fyne.CanvasObject {
	l := canvas.NewLine(c)
	l.StrokeWidth = 2
	l.Position1, l.Position2 = from.centre(), to.centre()
	p.lines = append(p.lines, l)
	return l
}

func (p *pathPicture) node(at nodeAt, label string) []fyne.CanvasObject {
	c := at.centre()
	dot := canvas.NewCircle(theme.Color(theme.ColorNamePrimary))
	dot.Move(fyne.NewPos(c.X-pathNodeRadius, c.Y-pathNodeRadius))
	dot.Resize(fyne.NewSize(2*pathNodeRadius, 2*pathNodeRadius))
	text := canvas.NewText(cutText(label, pathLabelRunes), theme.Color(theme.ColorNameForeground))
	text.TextSize = theme.TextSize() - 1
	text.Move(fyne.NewPos(c.X-text.MinSize().Width/2, c.Y+pathNodeRadius+1))
	text.Resize(text.MinSize())
	p.texts = append(p.texts, text)
	return []fyne.CanvasObject{dot, text}
}
