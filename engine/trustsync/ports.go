// Package trustsync pulls the web-of-trust events of the sync frontier from the
// configured relays (SPEC §6): bounded interval passes, live subscriptions
// (frontier or global), and the runner that switches strategies at run time.
//
// It never stores events itself: fetched events go to a Sink (the ingest
// pipeline), cursors and relay health to a Store, and whose events to fetch
// comes from a Frontier. The engine adapts its parts to these ports.
package trustsync

import (
	"context"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/store"
)

// Sink takes fetched events. It returns only after they are committed (or
// rejected); stored counts the events newly stored.
type Sink interface {
	Ingest(ctx context.Context, relay string, evs []*nostr.Event) (stored int, err error)
}

// Store holds cursors and relay health (a subset of *store.Store).
type Store interface {
	Relays() ([]string, error)
	Cursors(relay, scope string, authors []string) (map[string]store.Cursor, error)
	Completed(relays []string, scope string, authors []string) (map[string]bool, error)
	SaveCursors(cs []store.Cursor) error
	DeleteCursorsForAuthors(authors []string) error
	DeleteCursorsOutside(scopes, keep []string) (int64, error)
	Sweep(relay, scope string, keys store.KeysSum, day int64) (store.Sweep, bool, error)
	SaveSweep(sw store.Sweep) error
	SaveSweepOf(sw store.Sweep, parts []store.KeysSum) (bool, error)
	// AuthoredStamps are the held events matching f (for NIP-77; unordered
	// without a filter limit), with their tags when withTags is set.
	AuthoredStamps(ctx context.Context, f nostr.Filter, max int, withTags bool) ([]store.AuthoredStamp, error)
	relay.HealthStore
}

// Frontier says whose events to fetch. It grows as trust arrives: after
// Refresh returns, Authors reflects every event ingested so far.
type Frontier interface {
	Authors() []string           // hex pubkeys, sorted
	DiscoverySubjects() []string // "user:id:N" X accounts named in held statements
	ClaimCandidates() []string   // hex pubkeys whose 10011 claims are wanted
	HintedPubkeys() []string     // hex pubkeys that can bind an X account: their 10011 is refreshed daily
	// ClaimsFetched says the relays were asked for these pubkeys' 10011, so
	// a claim still missing is "unclaimed" rather than "pending".
	ClaimsFetched(pubkeys []string)
	Changed() <-chan struct{} // closed after the next recompute that changed it: every reader sees it
	Refresh(ctx context.Context) error
}
