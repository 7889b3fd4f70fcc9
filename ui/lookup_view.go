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

	subject, context *entry
	ask              *widget.Button
	err              *inlineError
	recent           []string // subjects as typed, newest first
	recentBox        *fyne.Container

	badge                        *verdictBadge
	asked, why, reason, computed *widget.Label
	coverage, reasons            *widget.Label
	ratings, evidenceMissing     *widget.Label
	evidence                     *textTable
	authors                      []string       // the evidence rows' authors, hex
	author                       *personButtons // act on the selected evidence row's author
	picture                      *pathPicture
	paths                        *pathList // every path in words, the picture's people and those past its cap
	answer                       *fyne.Container
	shown                        resolver.Answer // the answer on screen, drawn again when names arrive
}

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

	for _, l := range []**widget.Label{&v.asked, &v.why, &v.reason, &v.computed, &v.coverage, &v.reasons, &v.ratings, &v.evidenceMissing} {
		*l = widget.NewLabel("")
		(*l).Wrapping = fyne.TextWrapWord
	}
	v.asked.Wrapping = fyne.TextWrapOff // beside the badge
	v.evidence = newTextTable("Author", "Says", "Context", "Depth", "Reason")
	v.author = g.newPersonButtons("Look up this author")
	v.evidence.onSelect = v.chooseAuthor
	v.chooseAuthor("")
	v.answer = container.NewVBox(
		container.NewHBox(v.badge.root, v.asked),
		v.why,
		v.reason,
		widget.NewCard("Coverage", "", container.NewVBox(v.coverage, v.reasons)),
		widget.NewCard("Evidence", "", container.NewVBox(v.evidenceMissing, v.evidence.fitted(8), v.author.root)),
		widget.NewCard("Paths from you", "Click a person to look them up or copy their npub",
			container.NewVBox(container.NewHScroll(v.picture.root), v.paths.root)),
		widget.NewCard("Ratings", "", v.ratings),
		widget.NewAccordion(widget.NewAccordionItem("Diagnostics", v.computed)), // the engine's figures
	)
	v.answer.Hide()

	contextBox := container.NewGridWrap(fyne.NewSize(200, v.context.MinSize().Height), v.context)
	input := container.NewBorder(nil, nil, nil, container.NewHBox(contextBox, v.ask), v.subject)
	page := container.NewVScroll(container.NewVBox(
		input, v.err.label,
		container.NewHBox(widget.NewLabel("Recent:"), v.recentBox),
		v.answer,
	))
	v.evidence.scrollsIn(page)
	v.root = page
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
	v.subject.SetText(displayKey(hexKey))
	v.context.SetText("")
	v.lookUp()
}

// remember puts subject first in the recent look-ups.
func (v *lookupView) remember(typed string) {
	v.recent = slices.DeleteFunc(v.recent, func(s string) bool { return s == typed })
	v.recent = append([]string{typed}, v.recent...)
	v.recent = v.recent[:min(len(v.recent), maxRecent)]
	buttons := make([]fyne.CanvasObject, len(v.recent))
	for i, s := range v.recent {
		b := widget.NewButton(shortSubject(s), func() {
			v.subject.SetText(s)
			v.lookUp()
		})
		b.Importance = widget.LowImportance
		buttons[i] = b
	}
	v.recentBox.Objects = buttons
	v.recentBox.Refresh()
}

// show renders an answer.
func (v *lookupView) show(a resolver.Answer) {
	v.shown = a
	v.g.learnNames(answerPeople(a), func() { v.show(v.shown) })
	v.badge.show(a.Verdict)
	asked := "About " + displayKey(a.Subject)
	if len(a.Subject) == 64 && v.g.person(a.Subject) != shortKey(a.Subject) {
		asked = "About " + v.g.person(a.Subject) + " (" + shortKey(a.Subject) + ")"
	}
	if a.Context != "" {
		asked += " in context " + a.Context
	}
	setText(v.asked, asked)
	setText(v.why, verdictSentence(a, v.g.person))
	setText(v.reason, verdictReason(a))
	setText(v.computed, fmt.Sprintf("graph version %d, answered in %d µs", a.GraphVersion, a.ComputeMicros))

	facts := coverageFacts{clock: v.g.clock, truncation: a.Truncation, relays: v.g.last.Relays, pending: pendingClaims(a.Bindings)}
	if a.Coverage.State == status.StateComplete {
		setText(v.coverage, "Complete: every author of your web of trust is synced")
		setText(v.reasons, "")
	} else {
		setText(v.coverage, "Partial: the answer may miss statements, because")
		setText(v.reasons, facts.all(a.Coverage.Reasons))
	}

	rows := make([][]string, len(a.Evidence))
	v.authors = make([]string, len(a.Evidence))
	for i, e := range a.Evidence {
		rows[i] = []string{v.g.person(e.Author), valueWords(e.Value), orDash(e.Context), fmt.Sprint(e.Depth), orDash(e.Content)}
		v.authors[i] = e.Author
	}
	v.evidence.setRows(rows)
	v.chooseAuthor(v.evidence.selected)
	if len(rows) == 0 {
		setText(v.evidenceMissing, "Nobody in your web of trust made a statement about this subject.")
	} else {
		setText(v.evidenceMissing, plural(len(rows), "statement")+", nearest first:")
	}
	v.paths.show(a.Paths, v.g.person)
	v.picture.show(a, v.g.person)
	if a.Ratings.Count == 0 {
		setText(v.ratings, "No ratings")
	} else {
		setText(v.ratings, fmt.Sprintf("%s, average %.1f of 100", plural(a.Ratings.Count, "rating"), a.Ratings.Average))
	}
	v.answer.Show()
}

// verdictSentence says in one sentence why the verdict is what it is, from
// the evidence of the nearest depth that spoke (which decides, SPEC §7):
// "Trusted: Alice, whom you trust, trusts this account".
func verdictSentence(a resolver.Answer, person func(string) string) string {
	var trust, distrust []resolver.Evidence
	nearest := -1
	for _, e := range a.Evidence {
		if !e.Counted { // neutral, or farther than the degree that decided
			continue
		}
		nearest = e.Depth
		if e.Value > 0 {
			trust = append(trust, e)
		} else {
			distrust = append(distrust, e)
		}
	}
	switch {
	case a.Verdict == resolver.VerdictTrusted && len(trust) > 0:
		return "Trusted: " + speakers(trust, person) + " this account"
	case a.Verdict == resolver.VerdictDistrusted && len(distrust) > 0:
		return fmt.Sprintf("%s in your network %s this key, the nearest %s", people(len(distrust)),
			verb(len(distrust), "distrusts", "distrust"), hopsFromYou(nearest))
	case a.Verdict == resolver.VerdictMixed:
		return fmt.Sprintf("Mixed: %s in your network %s this and %d %s it, the nearest %s", people(len(trust)),
			verb(len(trust), "trusts", "trust"), len(distrust), verb(len(distrust), "distrusts", "distrust"), hopsFromYou(nearest))
	case len(a.Evidence) == 0:
		return "Nobody in your network has said anything about this"
	}
	return "Nobody in your network trusts or distrusts this: the nearest statements below are neutral"
}

// speakers is who trusts, nearest first: "you trust", "Alice, whom you
// trust, trusts", "Bob, 2 hops from you, and 3 others trust".
func speakers(es []resolver.Evidence, person func(string) string) string {
	first := es[0]
	if first.Depth == 0 && len(es) == 1 {
		return "you trust"
	}
	who := person(first.Author)
	switch first.Depth {
	case 0:
		who = "you"
	case 1:
		who += ", whom you trust,"
	default:
		who += ", " + hopsFromYou(first.Depth) + ","
	}
	if len(es) == 1 {
		return who + " trusts"
	}
	return fmt.Sprintf("%s and %s trust", who, plural(len(es)-1, "other"))
}

func people(n int) string {
	if n == 1 {
		return "1 person"
	}
	return count(n) + " people"
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// hopsFromYou is a depth in words: "1 hop from you".
func hopsFromYou(depth int) string {
	if depth == 0 {
		return "is you"
	}
	return plural(depth, "hop") + " from you"
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

// valueWords says a statement's value.
func valueWords(value int) string {
	switch {
	case value > 0:
		return "trusts"
	case value < 0:
		return "distrusts"
	}
	return "neutral"
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

// shortKey is a hex pubkey as a short npub: "npub1abcdef…uvwxyz".
func shortKey(hexKey string) string {
	k := displayKey(hexKey)
	if len(k) <= 20 {
		return k
	}
	return k[:11] + "…" + k[len(k)-6:]
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
