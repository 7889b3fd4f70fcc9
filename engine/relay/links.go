package relay

import (
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
)

// HealthStore is where relay health outlives a run, per sync profile (a
// subset of *store.Store).
type HealthStore interface {
	RelayHealth(p health.Profile, url string) (health.Health, bool, error)
	SaveRelayHealth(p health.Profile, h health.Health) error
}

// progressSaveEvery is how far (in seconds of LastSuccessAt) progress
// figures may run ahead of the saved health, so an EOSE does not cost a
// database write.
const progressSaveEvery = 10

// Links is a sync profile's set of relay links, each created from the
// profile's stored health of the relay, with their health changes saved back
// as that profile's: the other profile's link to the same relay is another
// link with its own health.
type Links struct {
	store   HealthStore
	profile health.Profile
	opts    func(url string) Options
	clock   clock.Clock
	log     *slog.Logger

	mu    sync.Mutex
	links map[string]*Link
	saved map[string]health.Health // last saved health per relay
}

// NewLinks makes an empty registry of profile's links; opts gives a relay's
// connection options, read at each connection (so a changed setting such as
// the page timeout reaches relays already known, and per-relay callbacks
// such as onNotice can name the relay).
func NewLinks(store HealthStore, profile health.Profile, opts func(url string) Options, clock clock.Clock, log *slog.Logger) *Links {
	return &Links{store: store, profile: profile, opts: opts, clock: clock, log: log,
		links: map[string]*Link{}, saved: map[string]health.Health{}}
}

// OptionsFor are a relay's connection options as both sync profiles make
// them (NewLinks): the data directory's NIP-42 key, the page timeout as set
// when the connection is made, and NOTICEs logged with the relay's address.
func OptionsFor(authKey string, pageTimeout func() time.Duration, log *slog.Logger) func(url string) Options {
	return func(url string) Options {
		return Options{authKey: authKey, pageTimeout: pageTimeout(),
			onNotice: func(msg string) { log.Info("relay notice", "relay", url, "notice", msg) }}
	}
}

// Get returns the relay's link, created from its stored health on first use.
func (ls *Links) Get(url string) *Link {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l, ok := ls.links[url]; ok {
		return l
	}
	h := health.New(url)
	if stored, ok, err := ls.store.RelayHealth(ls.profile, url); err != nil {
		ls.log.Warn("read relay health", "profile", ls.profile, "relay", url, "err", err)
	} else if ok {
		h = stored
		h.URL = url
	}
	var l *Link
	l = newLink(h, func() Options { return ls.opts(url) }, ls.clock, func(h health.Health) { ls.save(l, h, false) })
	ls.links[url] = l
	ls.saved[url] = h
	return l
}

// Track gives every url a link (so a status has a row for relays not yet
// touched this run) and forgets the links of all others: what a forgotten
// link's connection still does is not saved (the relay's health went with
// it, or a new link holds it now).
func (ls *Links) Track(urls []string) {
	for _, url := range urls {
		ls.Get(url)
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for url := range ls.links {
		if !slices.Contains(urls, url) {
			delete(ls.links, url)
			delete(ls.saved, url)
		}
	}
}

// All lists the links, sorted by URL.
func (ls *Links) All() []*Link {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	out := make([]*Link, 0, len(ls.links))
	for _, url := range slices.Sorted(maps.Keys(ls.links)) {
		out = append(out, ls.links[url])
	}
	return out
}

// Save saves l's health now, progress figures included: call it when a
// connection's use ends.
func (ls *Links) Save(l *Link) { ls.save(l, l.Health(), true) }

// save stores l's health changes that matter (state, failures, retry time,
// connection, refresh figures, a catch-up) at once and progress figures
// (success and commit times among them) at most every progressSaveEvery
// seconds, unless forced.
func (ls *Links) save(l *Link, h health.Health, force bool) {
	ls.mu.Lock()
	if ls.links[h.URL] != l {
		ls.mu.Unlock()
		return // forgotten (Track)
	}
	prev := ls.saved[h.URL]
	if !force && prev.State == h.State && prev.ConsecutiveFailures == h.ConsecutiveFailures &&
		prev.NextRetryAt == h.NextRetryAt && prev.LastConnectedAt == h.LastConnectedAt &&
		prev.LastError == h.LastError && prev.RefreshNIP77 == h.RefreshNIP77 && prev.RefreshIDs == h.RefreshIDs &&
		prev.RefreshBytes == h.RefreshBytes && prev.CaughtUpAt == h.CaughtUpAt && prev.CaughtUpFor == h.CaughtUpFor &&
		h.LastSuccessAt-prev.LastSuccessAt < progressSaveEvery && h.CommittedAt-prev.CommittedAt < progressSaveEvery {
		ls.mu.Unlock()
		return
	}
	ls.saved[h.URL] = h
	ls.mu.Unlock()
	if err := ls.store.SaveRelayHealth(ls.profile, h); err != nil {
		ls.log.Warn("save relay health", "profile", ls.profile, "relay", h.URL, "err", err)
	}
}
