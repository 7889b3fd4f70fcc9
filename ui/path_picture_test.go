package ui

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"dtp-personal/engine/resolver"
)

// The picture has one node per person per hop and one edge per hop, the
// last coloured by what the speaker said: you → Alice trusts the subject,
// you → Bob distrusts it.
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
		labels = append(labels, n.text.Text)
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
	if len(p.lines) != 4 || greens != 3 || reds != 1 {
		t.Errorf("%d edges, %d green, %d red; want 4: you→Alice, you→Bob, Alice→Sam green, Bob→Sam red", len(p.lines), greens, reds)
	}
	if !p.root.Visible() || p.root.MinSize().Width < 3*pathColumnWidth || p.root.MinSize().Height < 2*pathRowHeight {
		t.Errorf("picture shown %t, size %v", p.root.Visible(), p.root.MinSize())
	}
	p.show(resolver.Answer{Subject: subject}, name)
	if p.root.Visible() || len(p.lines) != 0 {
		t.Error("an answer without paths still shows a picture")
	}
}
