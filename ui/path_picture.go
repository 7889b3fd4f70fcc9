package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

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
	menu  func(hexKey string) *fyne.Menu // what a click on a person offers
	lines []*canvas.Line                 // the edges drawn, for tests
	nodes []*personNode                  // the nodes drawn, for tests
}

func newPathPicture(menu func(hexKey string) *fyne.Menu) *pathPicture {
	return &pathPicture{root: container.NewWithoutLayout(), menu: menu}
}

// nodeAt is a node's place: its column (hop) and row.
type nodeAt struct{ col, row int }

// show draws a's paths, naming people with person.
func (p *pathPicture) show(a resolver.Answer, person func(string) string) {
	paths := a.Paths[:min(len(a.Paths), pathMaxPaths)]
	p.lines, p.nodes = nil, nil
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
		objects = append(objects, p.node(at, key, label, len(key) == 64))
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

// node draws a person at its place; a key (not a pasted subject such as
// user:id:N) can be clicked for the person's menu.
func (p *pathPicture) node(at nodeAt, key, label string, clickable bool) fyne.CanvasObject {
	n := &personNode{key: key}
	if clickable {
		n.menu = p.menu
	}
	n.ExtendBaseWidget(n)
	n.dot = canvas.NewCircle(theme.Color(theme.ColorNamePrimary))
	n.dot.Resize(fyne.NewSize(2*pathNodeRadius, 2*pathNodeRadius))
	n.text = canvas.NewText(cutText(label, pathLabelRunes), theme.Color(theme.ColorNameForeground))
	n.text.TextSize = theme.TextSize() - 1
	n.text.Resize(n.text.MinSize())
	// The node's box holds its dot and its label under it, centred on the
	// node's centre; that box is what takes a click.
	c := at.centre()
	width := max(n.text.MinSize().Width, 2*pathNodeRadius)
	n.dot.Move(fyne.NewPos((width-2*pathNodeRadius)/2, 0))
	n.text.Move(fyne.NewPos((width-n.text.MinSize().Width)/2, 2*pathNodeRadius+1))
	n.Move(fyne.NewPos(c.X-width/2, c.Y-pathNodeRadius))
	n.Resize(fyne.NewSize(width, 2*pathNodeRadius+1+n.text.MinSize().Height))
	p.nodes = append(p.nodes, n)
	return n
}

// personNode is one person on the path picture: a dot and a name; a click
// (either button) opens the person's menu at the pointer.
type personNode struct {
	widget.BaseWidget
	key  string
	dot  *canvas.Circle
	text *canvas.Text
	menu func(hexKey string) *fyne.Menu // nil: not clickable
}

func (n *personNode) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout(n.dot, n.text))
}

func (n *personNode) Tapped(ev *fyne.PointEvent) {
	if n.menu == nil {
		return
	}
	showPersonMenu(n.menu(n.key), n, ev)
}

func (n *personNode) TappedSecondary(ev *fyne.PointEvent) { n.Tapped(ev) }

// Cursor is the pointing hand over a clickable person.
func (n *personNode) Cursor() desktop.Cursor {
	if n.menu == nil {
		return desktop.DefaultCursor
	}
	return desktop.PointerCursor
}
