package ui

import (
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/resolver"
	"dtp-personal/ui/words"
)

// Sizes of the path picture.
const (
	pathColumnWidth    = 190 // one hop, at most; narrower when the page is
	pathMinColumnWidth = 110 // one hop, at least
	pathRowHeight      = 48  // a label and the node under it
	pathNodeRadius     = 6
	pathMaxPaths       = 12 // more are listed in words below the picture
)

// pathPicture draws an answer's paths: you → … → the people who spoke → the
// subject, one column per hop, as wide as the page allows and as tall as its
// rows (it scrolls with the page: nothing in it takes the wheel). Paths that
// start alike share their first people, drawn once; the rows are in the
// order of the paths' people, so a person's rows follow one another and the
// edges, which run along rows and down columns, never cross. Labels sit
// above their nodes, clear of every edge. The subject is a bar down the last
// column that every path's last edge reaches along its own row. Green is
// trust (a hop is trust in someone's judgement), red distrust, grey neutral,
// as the legend says.
type pathPicture struct {
	root   *fyne.Container
	menu   func(hexKey string) *fyne.Menu // what a click on a person offers
	legend fyne.CanvasObject
	lines  []*canvas.Line // every edge's segments, for tests
	nodes  []*personNode  // the people drawn, the subject last; for tests
	places []pathPlace    // each node's place, in nodes' order
	edges  []pathEdge
	bar    *canvas.Rectangle // the subject
	rows   int
	cols   int // hops of the longest path, plus the subject's column
}

// pathPlace is a node's column (hop) and row.
type pathPlace struct{ col, row int }

// pathEdge is one edge: along the from row, down (or up) the from column,
// then along the to row; an edge to the subject ends at its bar.
type pathEdge struct {
	from, to  pathPlace
	toSubject bool
	segments  []*canvas.Line
}

func newPathPicture(menu func(hexKey string) *fyne.Menu) *pathPicture {
	p := &pathPicture{menu: menu, legend: pathLegend()}
	p.root = container.New(pictureLayout{p})
	p.root.Hide()
	return p
}

// pathLegend says what the colours mean.
func pathLegend() fyne.CanvasObject {
	box := container.NewHBox()
	for _, k := range []struct {
		color fyne.ThemeColorName
		said  string
	}{{theme.ColorNameSuccess, "trusts"}, {theme.ColorNameError, "distrusts"}, {neutralColor, "neutral"}} {
		line := canvas.NewRectangle(theme.Color(k.color))
		line.SetMinSize(fyne.NewSize(24, 3))
		box.Add(container.NewCenter(line))
		box.Add(widget.NewLabel(k.said))
	}
	return box
}

// neutralColor draws neutral statements: the placeholder text's grey, which
// the app theme keeps readable on the background.
const neutralColor = theme.ColorNamePlaceHolder

// show draws a's paths, naming people with person.
func (p *pathPicture) show(a resolver.Answer, person words.Namer) {
	paths := slices.Clone(a.Paths[:min(len(a.Paths), pathMaxPaths)])
	p.lines, p.nodes, p.places, p.edges = nil, nil, nil, nil
	p.rows, p.cols = 0, 0
	if len(paths) == 0 {
		p.root.Objects = nil
		p.root.Hide()
		p.root.Refresh()
		return
	}
	// Rows in the order of the paths' people: the paths through one person
	// are next to each other, so each edge down a column passes only rows of
	// that person's own paths.
	slices.SortFunc(paths, func(x, y []string) int { return slices.Compare(x, y) })
	said := words.Spoken(a)
	p.rows, p.cols = len(paths), 0
	for _, path := range paths {
		p.cols = max(p.cols, len(path)+1)
	}
	trust, distrust, neutral := theme.Color(theme.ColorNameSuccess), theme.Color(theme.ColorNameError), theme.Color(neutralColor)
	drawn := map[string]int{}            // a path prefix (its people joined) -> its node
	var edges, nodes []fyne.CanvasObject // the nodes drawn over the edges
	for row, path := range paths {
		prev := -1
		for i, key := range path {
			prefix := strings.Join(path[:i+1], " ")
			at, ok := drawn[prefix]
			if !ok {
				at = len(p.nodes)
				drawn[prefix] = at
				nodes = append(nodes, p.node(key, person(key), true))
				p.places = append(p.places, pathPlace{i, row})
				if prev >= 0 {
					edges = append(edges, p.edge(p.places[prev], p.places[at], false, trust)...)
				}
			}
			prev = at
		}
		edge := neutral
		switch v := said[path[len(path)-1]]; {
		case v > 0:
			edge = trust
		case v < 0:
			edge = distrust
		}
		edges = append(edges, p.edge(p.places[prev], pathPlace{p.cols - 1, row}, true, edge)...)
	}
	p.bar = canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	p.bar.CornerRadius = pathNodeRadius
	subject := p.node(a.Subject, words.Subject(a.Subject, person), len(a.Subject) == 64)
	p.places = append(p.places, pathPlace{p.cols - 1, 0})
	p.root.Objects = slices.Concat([]fyne.CanvasObject{p.legend}, edges, []fyne.CanvasObject{p.bar}, nodes,
		[]fyne.CanvasObject{subject})
	p.root.Show()
	p.root.Refresh()
}

// edge draws an edge's segments: along from's row (to the subject's bar),
// or down from's column and along to's row.
func (p *pathPicture) edge(from, to pathPlace, toSubject bool, c color.Color) []fyne.CanvasObject {
	e := pathEdge{from: from, to: to, toSubject: toSubject}
	n := 2
	if toSubject || from.row == to.row {
		n = 1
	}
	objects := make([]fyne.CanvasObject, n)
	for i := range n {
		l := canvas.NewLine(c)
		l.StrokeWidth = 2
		e.segments = append(e.segments, l)
		p.lines = append(p.lines, l)
		objects[i] = l
	}
	p.edges = append(p.edges, e)
	return objects
}

// node is a person (or the subject) with a label above; a key (not a
// pasted subject such as user:id:N) can be clicked for the person's menu.
func (p *pathPicture) node(key, label string, clickable bool) *personNode {
	n := &personNode{key: key, label: label}
	if clickable {
		n.menu = p.menu
	}
	n.ExtendBaseWidget(n)
	n.dot = canvas.NewCircle(theme.Color(theme.ColorNamePrimary))
	n.text = canvas.NewText(label, theme.Color(theme.ColorNameForeground))
	n.text.TextSize = theme.TextSize() - 1
	p.nodes = append(p.nodes, n)
	return n
}

// pictureLayout places the picture for the width it gets: the legend on
// top, then the rows, columns as wide as fit between the bounds.
type pictureLayout struct{ p *pathPicture }

// labelHeight is the room of a label above its node.
func labelHeight() float32 {
	return fyne.MeasureText("Xy", theme.TextSize()-1, fyne.TextStyle{}).Height + 2
}

func (l pictureLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	p := l.p
	legend := p.legend.MinSize()
	return fyne.NewSize(max(legend.Width, float32(p.cols)*pathMinColumnWidth),
		legend.Height+float32(p.rows)*pathRowHeight)
}

func (l pictureLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	p := l.p
	if p.cols == 0 {
		return
	}
	p.legend.Move(fyne.NewPos(0, 0))
	p.legend.Resize(p.legend.MinSize())
	top := p.legend.MinSize().Height
	colW := min(max(size.Width/float32(p.cols), pathMinColumnWidth), pathColumnWidth)
	centre := func(at pathPlace) fyne.Position {
		return fyne.NewPos(float32(at.col)*colW+colW/2, top+float32(at.row)*pathRowHeight+labelHeight()+pathNodeRadius)
	}
	for i, n := range p.nodes {
		n.place(centre(p.places[i]), colW-12)
	}
	first, last := centre(pathPlace{p.cols - 1, 0}), centre(pathPlace{p.cols - 1, p.rows - 1})
	p.bar.Move(fyne.NewPos(first.X-pathNodeRadius, first.Y-pathNodeRadius))
	p.bar.Resize(fyne.NewSize(2*pathNodeRadius, last.Y-first.Y+2*pathNodeRadius))
	p.nodes[len(p.nodes)-1].dot.Hide() // the bar is the subject's node
	for _, e := range p.edges {
		from, to := centre(e.from), centre(e.to)
		if e.toSubject {
			to.X -= pathNodeRadius
		}
		if len(e.segments) == 1 {
			e.segments[0].Position1, e.segments[0].Position2 = from, fyne.NewPos(to.X, from.Y)
		} else {
			corner := fyne.NewPos(from.X, to.Y)
			e.segments[0].Position1, e.segments[0].Position2 = from, corner
			e.segments[1].Position1, e.segments[1].Position2 = corner, to
		}
		for _, s := range e.segments {
			s.Refresh()
		}
	}
}

// personNode is one person on the path picture: a dot and a name above it;
// a click (either button) opens the person's menu at the pointer.
type personNode struct {
	widget.BaseWidget
	key   string
	label string // the whole name; text shows as much as fits
	dot   *canvas.Circle
	text  *canvas.Text
	menu  func(hexKey string) *fyne.Menu // nil: not clickable
}

// place puts the node's dot at centre and its label above it, cut to width.
func (n *personNode) place(centre fyne.Position, width float32) {
	n.text.Text = fitText(n.label, n.text.TextSize, width)
	textSize := n.text.MinSize()
	box := max(textSize.Width, 2*pathNodeRadius)
	n.text.Move(fyne.NewPos((box-textSize.Width)/2, 0))
	n.text.Resize(textSize)
	n.dot.Move(fyne.NewPos((box-2*pathNodeRadius)/2, labelHeight()))
	n.dot.Resize(fyne.NewSize(2*pathNodeRadius, 2*pathNodeRadius))
	n.Move(fyne.NewPos(centre.X-box/2, centre.Y-pathNodeRadius-labelHeight()))
	n.Resize(fyne.NewSize(box, labelHeight()+2*pathNodeRadius))
	n.text.Refresh()
}

// fitText is text cut (ending in "…") to fit width at size.
func fitText(text string, size, width float32) string {
	for n := len([]rune(text)); n > 1; n-- {
		cut := words.Cut(text, n)
		if fyne.MeasureText(cut, size, fyne.TextStyle{}).Width <= width {
			return cut
		}
	}
	return words.Cut(text, 1)
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
