package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// networkShown is the most people the list shows at once; a search narrows.
const networkShown = 500

// networkList is My network's people: one depth at a time, searchable by
// name or npub, each with who brought them in.
type networkList struct {
	g      *GUI
	root   fyne.CanvasObject
	depth  *widget.Select
	search *entry
	count  *widget.Label
	table  *textTable
	person *personButtons // act on the selected row's person
	keys   []string       // the rows' people, hex
	shown  string         // what the list was drawn from, see key
}

func newNetworkList(g *GUI) *networkList {
	l := &networkList{g: g, count: widget.NewLabel(""), table: newTextTable("Person", "npub", "Brought in by").whenEmpty("Nobody"),
		person: g.newPersonButtons("Look up")}
	l.table.keyCol = 1 // names repeat ("you" for every root); npubs do not
	l.table.onSelect = l.choose
	l.depth = widget.NewSelect(nil, func(string) { l.refresh(true) })
	l.search = newEntry(g)
	l.search.SetPlaceHolder("search by name or npub")
	l.search.OnChanged = func(string) { l.refresh(true) }
	depthBox := container.NewGridWrap(fyne.NewSize(200, l.depth.MinSize().Height), l.depth) // "2 hops from you" whole
	top := container.NewBorder(nil, nil, depthBox, nil, l.search)
	l.root = widget.NewCard("People", "", container.NewBorder(container.NewVBox(top, l.count), l.person.root, nil, nil, l.table.root))
	return l
}

// depthLabel names a depth: "1 hop from you"; depth 0 is you.
func depthLabel(d int) string {
	if d == 0 {
		return "You (your roots)"
	}
	return words.Plural(d, "hop") + " from you"
}

func (l *networkList) render(s status.Snapshot) {
	options := make([]string, len(s.Frontier.ByDepth))
	for d := range options {
		options[d] = depthLabel(d)
	}
	if strings.Join(options, "|") != strings.Join(l.depth.Options, "|") {
		l.depth.SetOptions(options)
	}
	if l.depth.Selected == "" && len(options) > 1 {
		l.depth.SetSelected(options[1]) // the people you trust
		return                          // SetSelected refreshed
	}
	l.refresh(false)
}

// refresh draws the list again when the frontier, the depth or the search
// changed (always when force).
func (l *networkList) refresh(force bool) {
	depth := l.depth.SelectedIndex()
	key := fmt.Sprintf("%d|%d|%d|%s", l.g.last.Heap.GraphVersion, l.g.last.Frontier.Size, depth, l.search.Text)
	if !force && key == l.shown || depth < 0 {
		return
	}
	l.shown = key
	members := l.g.eng.Network(depth)
	keys := make([]string, 0, 2*len(members))
	for _, m := range members {
		keys = append(keys, m.Pubkey, m.BroughtBy)
	}
	l.g.learnNames(keys, func() { l.refresh(true) })
	l.show(members)
}

func (l *networkList) show(members []frontier.Member) {
	typed := strings.ToLower(strings.TrimSpace(l.search.Text))
	var rows [][]string
	l.keys = l.keys[:0]
	found := 0
	for _, m := range members {
		name, npub := l.g.person(m.Pubkey), words.Npub(m.Pubkey)
		if typed != "" && !strings.Contains(strings.ToLower(name), typed) && !strings.Contains(npub, typed) {
			continue
		}
		found++
		if len(rows) == networkShown {
			continue
		}
		by := "—"
		if m.BroughtBy != "" {
			by = l.g.person(m.BroughtBy)
		}
		rows = append(rows, []string{name, npub, by})
		l.keys = append(l.keys, m.Pubkey)
	}
	l.table.setRows(rows)
	l.choose(l.table.selected)
	switch {
	case found > len(rows):
		setText(l.count, fmt.Sprintf("%s of %s shown; search to narrow", words.Count(len(rows)), words.People(found)))
	default:
		setText(l.count, words.People(found))
	}
}

// choose follows the table's selection (an npub, "" for none): its person
// can be looked up or copied.
func (l *networkList) choose(npub string) { l.person.choose(rowPerson(l.table, l.keys, npub)) }
