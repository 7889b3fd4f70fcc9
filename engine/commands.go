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

// Modify is the one way to change settings: change edits a copy of them
// (settings' edits such as settings.AddRelay, or a func of the caller's),
// the changed values are checked and written in one transaction, and the
// engine applies them at once. A change of a setting the engine takes only
// at its start is saved, and Modify says so with a *RestartNeeded.
func (e *Engine) Modify(change func(*settings.Settings) error) error {
	var later []string
	err := settings.Modify(e.store, func(s *settings.Settings) error {
		was := *s
		if err := change(s); err != nil {
			return err
		}
		later = e.atNextStart(was, *s)
		return nil
	})
	if err != nil {
		return err
	}
	if err := e.reloadSettings(); err != nil {
		return err
	}
	if len(later) > 0 {
		return &RestartNeeded{Settings: later}
	}
	return nil
}

// Import reads one JSON event per line and sends each through the ingest
// pipeline (importer.Run: events refused only because what they depend on
// is not held yet are sent again after the file), reporting progress after
// every thousand answers. Submit blocks while the pipeline is full, so
// memory stays bounded for any file size.
func (e *Engine) Import(ctx context.Context, r io.Reader, progress func(ingest.Tally)) (ingest.Tally, error) {
	if e.opts.ReadOnly {
		return ingest.Tally{}, ErrReadOnly
	}
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
