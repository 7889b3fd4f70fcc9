// Package ui is the desktop app: a Fyne window with Status, Look-up,
// Relays, Frontier, Activity, Settings and Repositories tabs, and a
// system-tray menu. It holds no business logic: views render a status.Snapshot and user actions call Engine methods
// off the UI thread. Typed input (a relay URL, a key, a number, an address)
// is checked with the engine's own rules (package settings), so that bad
// input is refused inline before reaching the engine.
package ui

import (
	"context"
	"io"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/resolver"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Engine is what the desktop app needs from the sync engine.
type Engine interface {
	// Status returns the current snapshot.
	Status() status.Snapshot
	// ListenAddr is the address the server is bound to ("" before it listens).
	ListenAddr() string
	// Network is the people of the frontier at one depth (0 = the roots),
	// each with who brought them in.
	Network(depth int) []frontier.Member
	// DataDir is where the engine keeps its data.
	DataDir() string
	// Backup writes a consistent snapshot of the database to path.
	Backup(path string) error
	// Export writes every stored event to w, one JSON event per line.
	Export(ctx context.Context, w io.Writer) (int, error)
	// Import sends the JSON events of r, one per line, through the ingest
	// pipeline, reporting as it goes.
	Import(ctx context.Context, r io.Reader, progress func(ingest.Tally)) (ingest.Tally, error)
	// Subscribe calls fn with new snapshots, one call at a time and at most
	// a few a second (the engine coalesces bursts), until cancel returns.
	Subscribe(fn func(status.Snapshot)) (cancel func())
	// Modify changes the settings: change edits a copy (settings' edits,
	// e.g. settings.AddRelay(url)); the engine checks, stores and applies
	// the result, or returns why not.
	Modify(change func(*settings.Settings) error) error
	SyncNow() error
	// Resolve answers a trust question (SPEC §7); only a malformed subject
	// is an error.
	Resolve(ctx context.Context, q resolver.Query) (resolver.Answer, error)
}

// edit is a settings edit of one argument (settings.AddRelay, …) as a
// command of the engine: it changes the settings through Modify.
func edit[T any](eng Engine, change func(T) func(*settings.Settings) error) func(T) error {
	return func(v T) error { return eng.Modify(change(v)) }
}
