package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/resolver"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// maxRecent bounds the recent look-ups kept for one click.
const maxRecent = 8

// lookupTimeout bounds one question to the engine.
const lookupTimeout = 10 * time.Second

// lookupView is the Look-up tab: what the user pasted, asked of the
// resolver, answered with a verdict, coverage in words, evidence, paths
// and ratings.
type lookupView struct {
	g    *GUI
	root fyne.CanvasObject
	page *container.Scroll

	subject, context *entry
	ask              *widget.Button
	err              *inlineError
	recent           []string // subjects as typed, newest first
	recentBox        *fyne.Container

	badge                    *verdictBadge
	about                    *fyne.Container // "About" and the subject, a link when it is a person
	why, reason, computed    *widget.Label
	coverage, reasons        *widget.Label
	ratings, evidenceMissing *widget.Label
	evidence                 *textTable
	authors                  []string       // the evidence rows' authors, hex
	author                   *personButtons // act on the selected evidence row's author
	picture                  *pathPicture
	paths                    *pathList // every path in words, the picture's people and those past its cap
	answer                   *fyne.Container
	shown                    resolver.Answer // the answer on screen, drawn again when names arrive
}

// evidenceRows is the most rows the evidence table shows at once: it is as
// tall as its rows up to there, so the wheel scrolls the page over it.
const evidenceRows = 100

func newLookupView(g *GUI) *lookupView {
	v := &lookupView{g: g, err: newInlineError(), badge: newVerdictBadge(), picture: newPathPicture(g.personMenu), paths: newPathList(g.personMenu)}
	v.subject = newEntry(g)
	v.subject.SetPlaceHolder("npub1…, hex pubkey or event id, user:id:N, x.com/i/user/N")
	v.subject.OnSubmitted = func(string) { v.lookUp() }
	v.context = newEntry(g)
	v.context.SetPlaceHolder("context (optional)")
	v.context.OnSubmitted = func(string) { v.lookUp() }
	v.ask = widget.NewButton("Look up", v.lookUp)
	v.recentBox = container.NewHBox()

	for _, l := range []**widget.Label{&v.why, &v.reason, &v.computed, &v.coverage, &v.reasons, &v.ratings, &v.evidenceMissing} {
		*l = widget.NewLabel("")
		(*l).Wrapping = fyne.TextWrapWord
	}
	v.about = container.NewHBox()
	v.evidence = newTextTable("Author", "Says", "Context", "Hops from you", "Counted", "Reason")
	v.author = g.newPersonButtons("Look up this author")
	v.evidence.onSelect = v.chooseAuthor
	v.chooseAuthor("")
	v.answer = container.NewVBox(
		container.NewHBox(v.badge.root, v.about),
		v.why,
		v.reason,
		widget.NewCard("Coverage", "", container.NewVBox(v.coverage, v.reasons)),
		widget.NewCard("Evidence", "", container.NewVBox(v.evidenceMissing, v.evidence.fitted(evidenceRows), v.author.root)),
		widget.NewCard("Paths from you", "Click a person to look them up or copy their npub",
			container.NewVBox(v.picture.root, v.paths.root)),
		widget.NewCard("Ratings", "", v.ratings),
		widget.NewAccordion(widget.NewAccordionItem("Diagnostics", v.computed)), // the engine's figures
	)
	v.answer.Hide()

	contextBox := container.NewGridWrap(fyne.NewSize(200, v.context.MinSize().Height), v.context)
	input := container.NewBorder(nil, nil, nil, container.NewHBox(contextBox, v.ask), v.subject)
	v.page = container.NewVScroll(container.NewVBox(
		input, v.err.label,
		container.NewHBox(widget.NewLabel("Recent:"), v.recentBox),
		v.answer,
	))
	v.evidence.scrollsIn(v.page)
	v.root = v.page
	return v
}

// render does nothing: an answer is asked for, not pushed with status.
func (v *lookupView) render(status.Snapshot) {}

// lookUp refuses bad input inline, else asks the engine off the UI thread.
func (v *lookupView) lookUp() {
	typed := strings.TrimSpace(v.subject.Text)
	subject, err := lookupSubject(typed)
	if err != nil {
		v.err.set(err.Error())
		return
	}
	v.err.clear()
	q := resolver.Query{Subject: subject, Context: strings.TrimSpace(v.context.Text)}
	var a resolver.Answer
	v.ask.Disable()
	v.g.call("Look up", func() (err error) {
		ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
		defer cancel()
		a, err = v.g.eng.Resolve(ctx, q)
		return err
	}, func(err error) {
		v.ask.Enable()
		if err != nil {
			v.err.set(err.Error())
			return
		}
		v.remember(typed)
		v.show(a)
		v.page.ScrollToTop() // a new answer is read from its verdict down
	})
}

// chooseAuthor follows the evidence table's selection: its author can be
// looked up or copied.
func (v *lookupView) chooseAuthor(label string) {
	v.author.choose(rowPerson(v.evidence, v.authors, label))
}

// lookUpKey looks a person up, as if their npub had been typed.
func (v *lookupView) lookUpKey(hexKey string) {
	if hexKey == "" {
		return
	}
	v.subject.SetText(words.Npub(hexKey))
	v.context.SetText("")
	v.lookUp()
}

// remember puts subject first in the recent look-ups.
func (v *lookupView) remember(typed string) {
	v.recent = slices.DeleteFunc(v.recent, func(s string) bool { return s == typed })
	v.recent = append([]string{typed}, v.recent...)
	v.recent = v.recent[:min(len(v.recent), maxRecent)]
	v.showRecent()
}

// showRecent draws the recent look-ups, people by name.
func (v *lookupView) showRecent() {
	buttons := make([]fyne.CanvasObject, len(v.recent))
	for i, s := range v.recent {
		b := widget.NewButton(v.recentLabel(s), func() {
			v.subject.SetText(s)
			v.lookUp()
		})
		b.Importance = widget.LowImportance
		buttons[i] = b
	}
	v.recentBox.Objects = buttons
	v.recentBox.Refresh()
}

// recentLabel names a recent look-up: a person by name (else a short npub),
// anything else as typed, shortened.
func (v *lookupView) recentLabel(typed string) string {
	if subject, err := lookupSubject(typed); err == nil && len(subject) == 64 {
		return words.Cut(v.g.person(subject), 24)
	}
	return shortSubject(typed)
}

// show renders an answer.
func (v *lookupView) show(a resolver.Answer) {
	v.shown = a
	v.g.learnNames(answerPeople(a), func() { v.show(v.shown) })
	v.showRecent()
	v.badge.show(a.Verdict)
	v.showAbout(a)
	setText(v.why, words.Verdict(a, v.g.person))
	setText(v.reason, verdictReason(a))
	setText(v.computed, fmt.Sprintf("graph version %d, answered in %d µs", a.GraphVersion, a.ComputeMicros))

	facts := words.FactsOf(v.g.last, v.g.clock)
	facts.Truncation, facts.Pending, facts.NotYetFetched = a.Truncation, pendingClaims(a.Bindings), a.Coverage.NotYetFetched
	if a.Coverage.State == status.StateComplete {
		setText(v.coverage, "Complete: every author of your web of trust is synced")
		setText(v.reasons, "")
	} else {
		setText(v.coverage, "Partial: the answer may miss statements, because")
		setText(v.reasons, facts.Reasons(a.Coverage.Reasons))
	}

	rows := make([][]string, len(a.Evidence))
	v.authors = make([]string, len(a.Evidence))
	for i, e := range a.Evidence {
		rows[i] = []string{v.g.person(e.Author), words.Value(e.Value), orDash(e.Context), fmt.Sprint(e.Depth),
			countedWords(e), orDash(e.Content)}
		v.authors[i] = e.Author
	}
	v.evidence.setRows(rows)
	v.chooseAuthor(v.evidence.selected)
	if len(rows) == 0 {
		setText(v.evidenceMissing, "Nobody in your web of trust made a statement about this subject.")
	} else {
		setText(v.evidenceMissing, words.Plural(len(rows), "statement")+", nearest first:")
	}
	v.paths.show(a, v.g.person)
	v.picture.show(a, v.g.person)
	if a.Ratings.Count == 0 {
		setText(v.ratings, "No ratings")
	} else {
		setText(v.ratings, fmt.Sprintf("%s, average %.1f of 100", words.Plural(a.Ratings.Count, "rating"), a.Ratings.Average))
	}
	v.answer.Show()
}

// showAbout names the subject beside the badge: a person by name, with
// their short npub, as a link to their menu (look up, copy npub).
func (v *lookupView) showAbout(a resolver.Answer) {
	objects := []fyne.CanvasObject{widget.NewLabel("About")}
	if len(a.Subject) == 64 {
		name := v.g.person(a.Subject)
		objects = append(objects, newPersonLink(name, a.Subject, v.g.personMenu))
		if short := words.ShortKey(a.Subject); name != short {
			objects = append(objects, widget.NewLabel("("+short+")"))
		}
	} else {
		objects = append(objects, widget.NewLabel(a.Subject))
	}
	if a.Context != "" {
		objects = append(objects, widget.NewLabel("in context "+a.Context))
	}
	v.about.Objects = objects
	v.about.Refresh()
}

// countedWords says whether a statement counted for the verdict, and why
// not: only the nearest distance with trust or distrust counts.
func countedWords(e resolver.Evidence) string {
	switch {
	case e.Counted:
		return "yes"
	case e.Value == 0:
		return "no: neutral"
	}
	return "no: further out"
}

func pendingClaims(bs []heap.Binding) int {
	n := 0
	for _, b := range bs {
		if b.State == heap.StatePending {
			n++
		}
	}
	return n
}

// answerPeople are the people an answer shows: the subject when it is a
// key, the evidence authors and the paths' hops.
func answerPeople(a resolver.Answer) []string {
	var keys []string
	if len(a.Subject) == 64 {
		keys = append(keys, a.Subject)
	}
	for _, e := range a.Evidence {
		keys = append(keys, e.Author)
	}
	for _, p := range a.Paths {
		keys = append(keys, p...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// shortSubject shortens a long pasted subject for a recent-look-up button.
func shortSubject(s string) string {
	if len(s) <= 24 {
		return s
	}
	return s[:13] + "…" + s[len(s)-6:]
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
