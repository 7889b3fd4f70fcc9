package ui

import (
	"log/slog"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// Names is where the window gets display names (ui/names): what is
// known now, and a fetch in the background of those not asked for lately.
// Names are display only: nothing the engine answers depends on them.
type Names interface {
	Names(pubkeys []string) (map[string]string, error)
	// Want fetches the names of pubkeys from relays in the background and
	// calls fetched, from another goroutine, when it found any.
	Want(relays, pubkeys []string, fetched func())
}

// SetNames gives the window its display names; without, people show as
// short npubs. Call before Start.
func (g *GUI) SetNames(n Names) { g.names = n }

// person is how the window names a hex public key: "you" for a root, the
// display name where known, else a short npub.
func (g *GUI) person(hexKey string) string {
	if slices.Contains(g.last.Settings.Roots, hexKey) {
		return "you"
	}
	if name := g.known[hexKey]; name != "" {
		return name
	}
	return words.ShortKey(hexKey)
}

// rootLabel names one of your roots: "you", with the root's display name
// where known ("you (Alice)"), since a person may follow from several keys.
func (g *GUI) rootLabel(hexKey string) string { return words.Root(g.known[hexKey]) }

// learnNames reads the known names of keys, then asks for those not asked
// for lately; when new ones arrive, redraw runs on the UI thread.
func (g *GUI) learnNames(keys []string, redraw func()) {
	if g.names == nil || len(keys) == 0 {
		return
	}
	g.readNames(keys)
	g.names.Want(nameRelays(g.last), keys, func() {
		g.onUI(func() {
			g.readNames(keys)
			redraw()
		})
	})
}

// nameRelays are the sync relays names are asked from: those the engine
// does not hold back (a relay in backoff, hourly or dead waits for the
// engine's next try, not for the window's questions).
func nameRelays(s status.Snapshot) []string {
	var out []string
	for _, url := range s.Settings.Relays {
		i := slices.IndexFunc(s.Relays, func(r status.Relay) bool { return r.URL == url })
		if i < 0 || s.Relays[i].Health == status.HealthHealthy || s.Relays[i].Health == "" {
			out = append(out, url)
		}
	}
	return out
}

func (g *GUI) readNames(keys []string) {
	known, err := g.names.Names(keys)
	if err != nil {
		slog.Warn("read display names", "err", err)
		return
	}
	for k, name := range known {
		g.known[k] = name
	}
}

// personMenu is what can be done with a person shown anywhere in the
// window: look them up, copy their npub.
func (g *GUI) personMenu(hexKey string) *fyne.Menu {
	return fyne.NewMenu("",
		fyne.NewMenuItem("Look up "+g.person(hexKey), func() { g.lookUpPerson(hexKey) }),
		fyne.NewMenuItem("Copy npub", func() { g.copyNpub(hexKey) }),
	)
}

// lookUpPerson brings up the Look-up tab asking about a person.
func (g *GUI) lookUpPerson(hexKey string) {
	g.tabs.SelectIndex(tabLookup)
	g.lookup.lookUpKey(hexKey)
}

// copyNpub puts a person's npub on the clipboard, and says so.
func (g *GUI) copyNpub(hexKey string) {
	g.copyText(words.Npub(hexKey), g.person(hexKey)+"'s npub")
}

// personButtons act on the person chosen in a table: look them up, copy
// their npub; they appear once somebody is chosen.
type personButtons struct {
	root         *fyne.Container
	lookUp, copy *widget.Button
	chosen       string // hex, "" when nobody
}

func (g *GUI) newPersonButtons(lookUpText string) *personButtons {
	b := &personButtons{}
	b.lookUp = widget.NewButton(lookUpText, func() { g.lookUpPerson(b.chosen) })
	b.copy = widget.NewButton("Copy npub", func() { g.copyNpub(b.chosen) })
	b.root = container.NewHBox(b.lookUp, b.copy)
	b.choose("")
	return b
}

// choose makes hexKey the person the buttons act on ("" for nobody).
func (b *personButtons) choose(hexKey string) {
	b.chosen = hexKey
	showIf(b.root, hexKey != "")
}

// rowPerson is the person (hex) of a table's row with the given key, from
// keys, the rows' people in row order; "" when no row has that key.
func rowPerson(t *textTable, keys []string, key string) string {
	for i, row := range t.rows {
		if key != "" && row[t.keyCol] == key && i < len(keys) {
			return keys[i]
		}
	}
	return ""
}
