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
	// SetStrategy switches the sync strategy (settings.FrontierInterval, …).
	SetStrategy(id string) error
	// SetInterval sets the interval strategy's period: 5, 15, 30, 60; 0 = manual.
	SetInterval(minutes int) error
	SyncNow() error
	SetPaused(paused bool) error
	// AddRelay adds a ws:// or wss:// sync relay.
	AddRelay(url string) error
	RemoveRelay(url string) error
	// AddRoot adds a configured root given as npub or hex.
	AddRoot(npubOrHex string) error
	// RemoveRoot removes a configured root given as hex.
	RemoveRoot(hex string) error
	SetLimits(l settings.Limits) error
	SetListen(addr string, allowLAN bool) error
	SetScopeProfile(scope string) error
	SetStartAtLogin(on bool) error
	// SetNotify turns desktop notifications on or off.
	SetNotify(on bool) error
	// AddRepoService adds a public URL of this server (repository sync).
	AddRepoService(url string) error
	RemoveRepoService(url string) error
	// Resolve answers a trust question (SPEC §7); only a malformed subject
	// is an error.
	Resolve(ctx context.Context, q resolver.Query) (resolver.Answer, error)
	// SetRepoBootstrap sets the bootstrap relay; "" = none.
	SetRepoBootstrap(url string) error
	// AllowHost adds a name requests may give in Host (SPEC §9 host
	// allow-list, e.g. a reverse proxy's); DisallowHost takes it off.
	AllowHost(name string) error
	DisallowHost(name string) error
	// AllowOrigin lets a web page's origin use the server (SPEC §9 origins);
	// DisallowOrigin takes it off.
	AllowOrigin(origin string) error
	DisallowOrigin(origin string) error
}
