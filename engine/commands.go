package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"io"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// The commands below are what the UI calls. Each changes the settings in the
// database (the shared truth) the way a CLI process does, then applies them
// at once instead of waiting for the settings watcher's next tick.

// SetStrategy switches the sync strategy.
func (e *Engine) SetStrategy(id string) error { return e.Modify(settings.SetStrategy(id)) }

// SetInterval sets the interval strategy's period (0 = manual).
func (e *Engine) SetInterval(minutes int) error { return e.Modify(settings.SetInterval(minutes)) }

// SetPaused pauses or resumes syncing.
func (e *Engine) SetPaused(paused bool) error { return e.Modify(settings.SetPaused(paused)) }

// SetLimits sets the frontier caps and heap guardrails.
func (e *Engine) SetLimits(l settings.Limits) error { return e.Modify(settings.SetLimits(l)) }

// SetListen sets the listen address (used from the next start).
func (e *Engine) SetListen(addr string, allowLAN bool) error {
	return e.Modify(settings.SetListen(addr, allowLAN))
}

// SetScopeProfile sets the scope profile.
func (e *Engine) SetScopeProfile(scope string) error {
	return e.Modify(settings.SetScopeProfile(scope))
}

// SetNotify turns the desktop app's notifications on or off.
func (e *Engine) SetNotify(on bool) error { return e.Modify(settings.SetNotify(on)) }

// SetStartAtLogin records the start-at-login choice (the UI writes the
// desktop's autostart entry).
func (e *Engine) SetStartAtLogin(on bool) error { return e.Modify(settings.SetStartAtLogin(on)) }

// AddRelay adds a sync relay after checking its URL.
func (e *Engine) AddRelay(url string) error { return e.Modify(settings.AddRelay(url)) }

// RemoveRelay removes a sync relay with its cursors and health.
func (e *Engine) RemoveRelay(url string) error { return e.Modify(settings.RemoveRelay(url)) }

// AddRoot adds a configured root (npub or hex).
func (e *Engine) AddRoot(npubOrHex string) error { return e.Modify(settings.AddRoot(npubOrHex)) }

// RemoveRoot removes a configured root (npub or hex).
func (e *Engine) RemoveRoot(npubOrHex string) error { return e.Modify(settings.RemoveRoot(npubOrHex)) }

// AddRepoService adds one of our public relay URLs for repository sync.
func (e *Engine) AddRepoService(url string) error { return e.Modify(settings.AddRepoService(url)) }

// RemoveRepoService removes one of our public relay URLs.
func (e *Engine) RemoveRepoService(url string) error {
	return e.Modify(settings.RemoveRepoService(url))
}

// SetRepoBootstrap sets the repository sync's bootstrap relay; "" = none.
func (e *Engine) SetRepoBootstrap(url string) error { return e.Modify(settings.SetRepoBootstrap(url)) }

// AllowHost lets requests name this server by host (SPEC §9 host allow-list).
func (e *Engine) AllowHost(name string) error { return e.Modify(settings.AllowHost(name)) }

// DisallowHost takes a host name off the allow-list.
func (e *Engine) DisallowHost(name string) error { return e.Modify(settings.DisallowHost(name)) }

// AllowOrigin lets a web page's origin read and write (SPEC §9 origins).
func (e *Engine) AllowOrigin(origin string) error { return e.Modify(settings.AllowOrigin(origin)) }

// DisallowOrigin takes a web page's origin off the allow-list.
func (e *Engine) DisallowOrigin(origin string) error {
	return e.Modify(settings.DisallowOrigin(origin))
}

// Modify is the one way to change settings: change edits a copy of them
// (settings' edits such as settings.AddRelay, or a func of the caller's),
// the changed values are checked and written in one transaction, and the
// engine applies them at once.
func (e *Engine) Modify(change func(*settings.Settings) error) error {
	if err := settings.Modify(e.store, change); err != nil {
		return err
	}
	return e.reloadSettings()
}

// Import reads one JSON event per line and sends each through the ingest
// pipeline (importer.Run: events refused only because what they depend on
// is not held yet are sent again after the file), reporting progress after
// every thousand answers. Submit blocks while the pipeline is full, so
// memory stays bounded for any file size.
func (e *Engine) Import(ctx context.Context, r io.Reader, progress func(ingest.Tally)) (ingest.Tally, error) {
	return importer.Run(ctx, r, pipelineTransport{e}, progress)
}

// pipelineTransport is this engine's ingest pipeline as an import's transport.
type pipelineTransport struct{ e *Engine }

func (p pipelineTransport) Send(ctx context.Context, ev *nostr.Event, _ []byte, done func(ingest.Result)) error {
	return p.e.ingest.Submit(ctx, ev, "import", done)
}

func (pipelineTransport) Err() error { return nil }

// ExportEvents writes every stored event of the given kinds (every event
// the store holds, of either profile, when empty) as one JSON object per
// line, in storage order. It only reads, so it works beside a running server.
func ExportEvents(ctx context.Context, st *store.Store, w io.Writer, kinds []int) (int, error) {
	if len(kinds) == 0 {
		kinds = nil // Scan: every kind
	}
	bw := bufio.NewWriter(w)
	n := 0
	err := st.Scan(ctx, kinds, func(ev *nostr.Event) error {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}
