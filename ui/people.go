package ui

import (
	"log/slog"
	"slices"
)

// Names is where the window gets display names (engine/names): what is
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
	return shortKey(hexKey)
}

// learnNames reads the known names of keys, then asks for those not asked
// for lately; when new ones arrive, redraw runs on the UI thread.
func (g *GUI) learnNames(keys []string, redraw func()) {
	if g.names == nil || len(keys) == 0 {
		return
	}
	g.readNames(keys)
	g.names.Want(g.last.Settings.Relays, keys, func() {
		g.onUI(func() {
			g.readNames(keys)
			redraw()
		})
	})
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
