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
)

// suggestedRelays are the AttentionX browser extension's default relays
// (DigitalTrustProtocol/BrowserExtension, src/shared/contracts.ts,
// DEFAULT_RELAYS): offered on first run, added only when the user accepts.
var suggestedRelays = []string{"wss://nos.lol", "wss://nostr-01.yakihonne.com"}

// setupCard leads the Status tab while the engine has no root or no relay:
// the user's npub becomes the first root, and the suggested relays are
// accepted in one click or edited first. It hides once both exist.
type setupCard struct {
	g    *GUI
	root fyne.CanvasObject

	npub      *addForm
	npubStep  fyne.CanvasObject
	relays    *entry
	useRelays *widget.Button
	relaysErr *inlineError
	relayStep fyne.CanvasObject
}

func newSetupCard(g *GUI) *setupCard {
	c := &setupCard{g: g, relaysErr: newInlineError()}
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
	c.root = widget.NewCard("Get started", "Two steps, then press Sync now below.",
		container.NewVBox(c.npubStep, c.relayStep))
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

func (c *setupCard) render(s status.Snapshot) {
	hasRoot, hasRelay := len(s.Settings.Roots) > 0, len(s.Settings.Relays) > 0
	showIf(c.npubStep, !hasRoot)
	showIf(c.relayStep, !hasRelay)
	showIf(c.root, !hasRoot || !hasRelay)
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
