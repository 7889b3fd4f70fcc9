package ui

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// suggestedRelays are the AttentionX browser extension's default relays
// (DigitalTrustProtocol/BrowserExtension, src/shared/contracts.ts,
// DEFAULT_RELAYS): offered on first run, added only when the user accepts.
var suggestedRelays = []string{"wss://nos.lol", "wss://nostr-01.yakihonne.com"}

// setupCard leads the Status tab until a new user is set up: the user's
// npub becomes the first root, the suggested relays are accepted in one
// click or edited first, and the first sync runs by itself. Each step done
// is ticked off ("✓ Root: you (Alice)"), in the words `status` uses on the
// command line (words.Setup); once the first pass ran, a closing line leads
// to Look-up. An app that starts set up shows no card.
type setupCard struct {
	g    *GUI
	root fyne.CanvasObject

	npub      *addForm
	npubStep  fyne.CanvasObject
	relays    *entry
	useRelays *widget.Button
	relaysErr *inlineError
	relayStep fyne.CanvasObject
	// the steps' lines: ticked when done, the first pass's while it runs
	rootDone, relaysDone, firstPass *widget.Label
	closing                         fyne.CanvasObject // the last line, with the way to Look-up

	started   bool   // the card was shown with a step to do
	dismissed bool   // the user closed it, or went on to Look-up
	rootsSeen string // the roots whose names were asked for
}

func newSetupCard(g *GUI) *setupCard {
	c := &setupCard{g: g, relaysErr: newInlineError(),
		rootDone: widget.NewLabel(""), relaysDone: widget.NewLabel(""), firstPass: widget.NewLabel("")}
	c.npub = newAddForm(g, "Your npub", "npub1… (yours: the web of trust starts from the accounts you trust)",
		"Use as my root", tidyRoot, func(root string) error { return g.eng.Modify(settings.AddRoot(root)) })
	c.relays = newMultiLineEntry(g)
	c.relays.SetText(strings.Join(suggestedRelays, "\n"))
	c.relays.SetMinRowsVisible(len(suggestedRelays))
	c.useRelays = widget.NewButton("Use these relays", c.addRelays)
	c.useRelays.Importance = widget.HighImportance

	c.npubStep = container.NewVBox(widget.NewLabel("1. Your npub"), c.npub.root)
	c.relayStep = container.NewVBox(
		widget.NewLabel("2. Relays to sync from (suggested: the AttentionX extension's defaults; edit freely, one per line)"),
		c.relays, container.NewHBox(c.useRelays), c.relaysErr.label)
	lookUp := widget.NewButton("Look someone up", func() {
		c.dismiss()
		g.focusLookup()
	})
	lookUp.Importance = widget.HighImportance
	done := widget.NewLabel("You are set up: your web of trust is synced and keeps syncing by itself. Ask about " +
		"anyone by npub or X account.")
	done.Wrapping = fyne.TextWrapWord
	c.closing = container.NewVBox(done, container.NewHBox(lookUp, widget.NewButton("Close", c.dismiss)))
	c.root = widget.NewCard("Get started", "Two steps; then the first sync runs by itself.",
		container.NewVBox(c.rootDone, c.npubStep, c.relaysDone, c.relayStep, c.firstPass, c.closing))
	c.root.Hide()
	return c
}

// addRelays checks every line with the engine's rule, refusing them all
// inline if one is wrong, then adds them in order.
func (c *setupCard) addRelays() {
	var urls []string
	var bad []error
	for _, line := range strings.Split(c.relays.Text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		url, err := settings.NormalizeRelayURL(line)
		if err != nil {
			bad = append(bad, err)
		}
		urls = append(urls, url)
	}
	switch {
	case len(bad) > 0:
		c.relaysErr.setErr(errors.Join(bad...))
		return
	case len(urls) == 0:
		c.relaysErr.set("enter at least one relay, as wss://host")
		return
	}
	c.relaysErr.clear()
	c.useRelays.Disable()
	for i, url := range urls {
		last := i == len(urls)-1
		c.g.call("Add relay", func() error { return c.g.eng.Modify(settings.AddRelay(url)) }, func(err error) {
			if err != nil {
				c.relaysErr.set(fmt.Sprintf("%s: %v", url, err))
			}
			if last {
				c.useRelays.Enable()
			}
		})
	}
}

// dismiss closes the card for this run.
func (c *setupCard) dismiss() {
	c.dismissed = true
	c.root.Hide()
}

func (c *setupCard) render(s status.Snapshot) {
	if s.State == "" {
		return // the window's placeholder before the engine's first snapshot
	}
	if roots := strings.Join(s.Frontier.Roots, " "); roots != c.rootsSeen {
		c.rootsSeen = roots // "you (Alice)" once her name is known
		c.g.learnNames(s.Frontier.Roots, func() { c.render(c.g.last) })
	}
	st := words.SetupOf(s, func(hexKey string) string { return c.g.known[hexKey] })
	if !st.Done() {
		c.started = true
	}
	showIf(c.root, c.started && !c.dismissed)
	if !c.root.Visible() {
		return
	}
	c.step(st.Root, c.rootDone, c.npubStep)
	c.step(st.Relays, c.relaysDone, c.relayStep)
	setText(c.firstPass, st.FirstPass.Tick())
	showIf(c.firstPass, st.Root.Done && st.Relays.Done)
	showIf(c.closing, st.Done())
}

// step shows a step ticked off once done, else its form.
func (c *setupCard) step(st words.Step, done *widget.Label, form fyne.CanvasObject) {
	setText(done, st.Tick())
	showIf(done, st.Done)
	showIf(form, !st.Done)
}

// showIf shows o when on, hides it otherwise.
func showIf(o fyne.CanvasObject, on bool) {
	if on == o.Visible() {
		return
	}
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}
