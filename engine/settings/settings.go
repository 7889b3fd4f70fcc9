// Package settings owns the user's settings: their type, where each is kept,
// loading, validation and the one way to change them (Modify). The CLI, the
// desktop UI and the engine all go through it; the database is the shared
// truth between a running server and CLI commands on the same data directory.
package settings

import "slices"

// Settings are the user's settings. The status snapshot shows them as its
// "settings" section; the fields shown elsewhere in the snapshot (strategy,
// interval, paused, roots, relays) are left out of that section.
type Settings struct {
	Strategy        string   `json:"-"`
	IntervalMinutes int      `json:"-"` // interval strategy's period; 0 = manual only
	Paused          bool     `json:"-"`
	Roots           []string `json:"-"` // hex pubkeys, sorted
	Relays          []string `json:"-"` // sync relay URLs, normalised, sorted

	Listen       string `json:"listen"`
	AllowLAN     bool   `json:"allowLan"`
	ScopeProfile string `json:"scopeProfile"`
	Limits       Limits `json:"limits"`
	StartAtLogin bool   `json:"startAtLogin"`
	// Notify lets the desktop app send notifications (a relay marked dead,
	// the disk full, a pass partial after a complete one).
	Notify bool `json:"notify"`
	// RepoSyncServices are our public relay URLs (normalised, sorted); the
	// repository sync profile is off while there is none.
	RepoSyncServices []string `json:"repoSyncServices"`
	// RepoSyncBootstrap is the relay always asked for repositories; "" = none.
	RepoSyncBootstrap string `json:"repoSyncBootstrap"`
	// RepoSyncLocalRelays lets repository sync dial what announcements name
	// on this machine or its networks: ws:// URLs and addresses that are
	// loopback, private, link-local or unique-local. Off by default: an
	// announcement is written by anyone (SPEC §8 dial policy).
	RepoSyncLocalRelays bool `json:"repoSyncLocalRelays"`
	// AllowedHosts are names besides this machine's own that requests may
	// carry in Host (ParseHostName form, sorted), e.g. a reverse proxy's.
	AllowedHosts []string `json:"allowedHosts"`
	// AllowedOrigins are web pages that may use the server (ParseOrigin
	// form, sorted); other pages may neither read nor write.
	AllowedOrigins []string `json:"allowedOrigins"`
	// TrustedProxies are the addresses of reverse proxies in front of this
	// server (ParseProxyAddress form, sorted): a connection from one is
	// counted against the per-address cap by the client address the proxy
	// names in X-Forwarded-For, not as the proxy's own.
	TrustedProxies []string `json:"trustedProxies"`
	// PruneAfterDays, when not 0, has a running server remove the trust
	// events of people outside the network for more than that many days
	// (0: off, the default; `dtp-personal prune` by hand still works).
	PruneAfterDays int `json:"pruneAfterDays"`
}

// DefaultListen is where the server listens unless told otherwise.
const DefaultListen = "127.0.0.1:7447"

// Defaults are the settings of a data directory where none was ever set.
func Defaults() Settings {
	return Settings{
		Strategy: FrontierInterval, IntervalMinutes: 15, Limits: DefaultLimits(),
		Listen: DefaultListen, ScopeProfile: "x.com", RepoSyncServices: []string{}, Notify: true,
		AllowedHosts: []string{}, AllowedOrigins: []string{}, TrustedProxies: []string{},
	}
}

// clone copies s so that changing the copy's lists leaves s alone.
func (s Settings) clone() Settings {
	s.Roots = slices.Clone(s.Roots)
	s.Relays = slices.Clone(s.Relays)
	s.RepoSyncServices = slices.Clone(s.RepoSyncServices)
	s.AllowedHosts = slices.Clone(s.AllowedHosts)
	s.AllowedOrigins = slices.Clone(s.AllowedOrigins)
	s.TrustedProxies = slices.Clone(s.TrustedProxies)
	return s
}
