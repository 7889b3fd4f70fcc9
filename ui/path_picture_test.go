package ui

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"dtp-personal/engine/resolver"
)

// The picture has one node per person per path prefix and the edges
// between them, the last edge of each path coloured by what the speaker
// said: you → Alice trusts the subject, you → Bob distrusts it.
func TestPathPictureDrawsHopsAndWhatWasSaid(t *testing.T) {
	test.NewTempApp(t) // theme colours come from the app
	subject := "5be6446aa8a31c11b3b453bf8dafc9b346ff328d1fa11a0fa02a1e6461f6a9b1"
	a := resolver.Answer{
		Subject: subject, Verdict: resolver.VerdictMixed,
		Evidence: []resolver.Evidence{{Author: "alice", Value: 1, Depth: 1}, {Author: "bob", Value: -1, Depth: 1}},
		Paths:    [][]string{{"root", "alice"}, {"root", "bob"}},
	}
	name := func(k string) string {
		return map[string]string{"root": "you", "alice": "Alice", "bob": "Bob", subject: "Sam"}[k]
	}
	p := newPathPicture(nil)
	p.show(a, name)
	var labels []string
	for _, n := range p.nodes {
		labels = append(labels, n.label)
	}
	slices.Sort(labels)
	if !slices.Equal(labels, []string{"Alice", "Bob", "Sam", "you"}) {
		t.Errorf("nodes %q, want you, Alice, Bob and Sam once each", labels)
	}
	green, red := theme.Color(theme.ColorNameSuccess), theme.Color(theme.ColorNameError)
	var greens, reds int
	for _, l := range p.lines {
		switch l.StrokeColor {
		case green:
			greens++
		case red:
			reds++
		}
	}
	// you→Alice along a row; you→Bob down your column, then along Bob's row
	if len(p.lines) != 5 || greens != 4 || reds != 1 {
		t.Errorf("%d segments, %d green, %d red; want 5: you→Alice, you→Bob (2), Alice→Sam green, Bob→Sam red", len(p.lines), greens, reds)
	}
	min := p.root.MinSize()
	if !p.root.Visible() || min.Width < 3*pathMinColumnWidth || min.Height < 2*pathRowHeight {
		t.Errorf("picture shown %t, size %v", p.root.Visible(), min)
	}
	assertShows(t, p.legend, "trusts", "distrusts", "neutral")
	p.show(resolver.Answer{Subject: subject}, name)
	if p.root.Visible() || len(p.lines) != 0 {
		t.Error("an answer without paths still shows a picture")
	}
}

// However the paths branch and whatever their lengths, no two edges cross
// and no edge runs through a label (issue 31), at the window's width and at
// the narrowest the picture gets.
func TestPathPictureEdgesDoNotCrossOrTouchLabels(t *testing.T) {
	test.NewTempApp(t)
	subject := "user:id:42"
	paths := [][]string{
		{"r", "e"}, {"r", "g", "h", "i"}, {"r", "a", "c", "d"}, {"r", "a"}, {"r", "e", "f"},
		{"r", "a", "b"}, {"r", "e", "b"}, {"r", "g", "h", "j"}, {"r2", "k"}, {"r", "a", "c", "m"},
	}
	var evidence []resolver.Evidence
	for i, path := range paths {
		evidence = append(evidence, resolver.Evidence{Author: path[len(path)-1], Value: []int{1, -1, 0}[i%3], Depth: len(path) - 1})
	}
	a := resolver.Answer{Subject: subject, Evidence: evidence, Paths: paths}
	p := newPathPicture(nil)
	p.show(a, func(k string) string { return "person " + k + " with a long display name" })
	for _, width := range []float32{1000, p.root.MinSize().Width} {
		p.root.Resize(fyne.NewSize(width, p.root.MinSize().Height))
		for i, x := range p.lines {
			for _, y := range p.lines[i+1:] {
				if crosses(x, y) {
					t.Errorf("width %v: edges cross: %s and %s", width, segment(x), segment(y))
				}
			}
			for _, n := range p.nodes {
				at := n.Position().Add(n.text.Position())
				if touches(x, at, n.text.Size()) {
					t.Errorf("width %v: edge %s runs through the label %q at %v %v", width, segment(x), n.text.Text, at, n.text.Size())
				}
			}
		}
		for _, n := range p.nodes {
			if right := n.Position().X + n.Size().Width; right > width+1 {
				t.Errorf("width %v: %q reaches %v, past the picture", width, n.text.Text, right)
			}
		}
	}
}

func segment(l *canvas.Line) string { return fmt.Sprintf("%v→%v", l.Position1, l.Position2) }

// crosses reports whether two edge segments (each along a row or down a
// column) cross: they meet at a point inside both, not where one ends.
func crosses(a, b *canvas.Line) bool {
	h, v := a, b
	if a.Position1.X == a.Position2.X {
		h, v = b, a
	}
	if h.Position1.Y != h.Position2.Y || v.Position1.X != v.Position2.X {
		return false // parallel: along a row or a column together is a shared trunk
	}
	x, y := v.Position1.X, h.Position1.Y
	inside := func(p, a, b float32) bool { return p > min(a, b) && p < max(a, b) }
	return inside(x, h.Position1.X, h.Position2.X) && inside(y, v.Position1.Y, v.Position2.Y)
}

// touches reports whether a segment passes within a pixel of a label's box.
func touches(l *canvas.Line, at fyne.Position, size fyne.Size) bool {
	x0, x1 := min(l.Position1.X, l.Position2.X)-1, max(l.Position1.X, l.Position2.X)+1
	y0, y1 := min(l.Position1.Y, l.Position2.Y)-1, max(l.Position1.Y, l.Position2.Y)+1
	return x0 < at.X+size.Width && x1 > at.X && y0 < at.Y+size.Height && y1 > at.Y
}
