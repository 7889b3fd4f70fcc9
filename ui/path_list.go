package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/resolver"
	"dtp-personal/ui/words"
)

// pathList shows every path of an answer in words, one per line, ending
// with what its speaker said ("you → Dave distrusts Yusuf"), each person on
// it a link to their menu: the picture above it draws at most pathMaxPaths
// paths, this lists them all.
type pathList struct {
	root *fyne.Container
	menu func(hexKey string) *fyne.Menu
}

func newPathList(menu func(hexKey string) *fyne.Menu) *pathList {
	return &pathList{root: container.NewVBox(), menu: menu}
}

// show lists a's paths (hex keys, root first), people named by person.
func (l *pathList) show(a resolver.Answer, person words.Namer) {
	said := words.Spoken(a)
	lines := make([]fyne.CanvasObject, len(a.Paths))
	for i, p := range a.Paths {
		line := container.NewHBox()
		for j, k := range p {
			if j > 0 {
				line.Add(widget.NewLabel("→"))
			}
			line.Add(newPersonLink(person(k), k, l.menu))
		}
		line.Add(widget.NewLabel(words.Says(said[p[len(p)-1]])))
		if len(a.Subject) == 64 {
			line.Add(newPersonLink(person(a.Subject), a.Subject, l.menu))
		} else {
			line.Add(widget.NewLabel(a.Subject))
		}
		lines[i] = line
	}
	if len(lines) == 0 {
		lines = append(lines, widget.NewLabel("—"))
	}
	l.root.Objects = lines
	l.root.Refresh()
}

// personLink is a person's name as a link; a click (either button) opens
// their menu at the pointer.
type personLink struct {
	widget.Hyperlink
	key  string
	menu func(hexKey string) *fyne.Menu
}

func newPersonLink(name, hexKey string, menu func(hexKey string) *fyne.Menu) *personLink {
	l := &personLink{key: hexKey, menu: menu}
	l.Text = name
	l.ExtendBaseWidget(l)
	return l
}

func (l *personLink) Tapped(ev *fyne.PointEvent) { showPersonMenu(l.menu(l.key), l, ev) }

func (l *personLink) TappedSecondary(ev *fyne.PointEvent) { l.Tapped(ev) }

// showPersonMenu opens a person's menu at the pointer that clicked on.
func showPersonMenu(menu *fyne.Menu, on fyne.CanvasObject, ev *fyne.PointEvent) {
	widget.ShowPopUpMenuAtPosition(menu, fyne.CurrentApp().Driver().CanvasForObject(on), ev.AbsolutePosition)
}
