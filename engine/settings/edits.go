package settings

import (
	"fmt"
	"slices"
)

// The edits below are the changes users make, for Modify. Each parses what
// the user typed with the one rulebook of its setting, so the CLI and the UI
// (through the engine) change settings the same way.

// SetStrategy chooses the sync strategy (SPEC §6.1).
func SetStrategy(id string) func(*Settings) error {
	return func(s *Settings) error { s.Strategy = id; return nil }
}

// SetInterval sets the interval strategy's period; 0 = manual only.
func SetInterval(minutes int) func(*Settings) error {
	return func(s *Settings) error { s.IntervalMinutes = minutes; return nil }
}

// SetPaused pauses or resumes syncing.
func SetPaused(paused bool) func(*Settings) error {
	return func(s *Settings) error { s.Paused = paused; return nil }
}

// SetLimits sets the frontier caps and heap guardrails.
func SetLimits(l Limits) func(*Settings) error {
	return func(s *Settings) error { s.Limits = l; return nil }
}

// SetListen sets the listen address (used from the next start) and whether
// local-network peers may connect (at once).
func SetListen(addr string, allowLAN bool) func(*Settings) error {
	return func(s *Settings) (err error) {
		s.Listen, err = ParseListen(addr)
		s.AllowLAN = allowLAN
		return err
	}
}

// SetAllowLAN lets local-network peers (private and link-local addresses)
// connect, or stops them, at once; the Origin and Host rules stay as they are.
func SetAllowLAN(allow bool) func(*Settings) error {
	return func(s *Settings) error { s.AllowLAN = allow; return nil }
}

// SetPruneAfterDays turns automatic pruning on (days outside the network
// before a person's events go) or off (0).
func SetPruneAfterDays(days int) func(*Settings) error {
	return func(s *Settings) error { s.PruneAfterDays = days; return nil }
}

// MaxPruneDays bounds PruneAfterDays: ten years.
const MaxPruneDays = 3650

func checkPruneDays(days int) error {
	if days < 0 || days > MaxPruneDays {
		return fmt.Errorf("pruneAfterDays must be from 0 (off) to %d, not %d", MaxPruneDays, days)
	}
	return nil
}

// SetScopeProfile sets the scope profile.
func SetScopeProfile(scope string) func(*Settings) error {
	return func(s *Settings) (err error) { s.ScopeProfile, err = ParseScopeProfile(scope); return err }
}

// SetNotify turns the desktop app's notifications on or off.
func SetNotify(on bool) func(*Settings) error {
	return func(s *Settings) error { s.Notify = on; return nil }
}

// SetStartAtLogin records the start-at-login choice.
func SetStartAtLogin(on bool) func(*Settings) error {
	return func(s *Settings) error { s.StartAtLogin = on; return nil }
}

// AddRelay adds a sync relay.
func AddRelay(url string) func(*Settings) error { return addTo(relays, url, NormalizeRelayURL) }

// RemoveRelay removes a sync relay (and, in the store, its cursors and health).
func RemoveRelay(url string) func(*Settings) error {
	return removeFrom(relays, url, NormalizeRelayURL)
}

// AddRoot adds a configured root given as npub or hex.
func AddRoot(npubOrHex string) func(*Settings) error { return addTo(roots, npubOrHex, ParsePubkey) }

// RemoveRoot removes a configured root given as npub or hex.
func RemoveRoot(npubOrHex string) func(*Settings) error {
	return removeFrom(roots, npubOrHex, ParsePubkey)
}

// AddRepoService adds one of our public relay URLs for repository sync.
func AddRepoService(url string) func(*Settings) error {
	return addTo(repoServices, url, NormalizeRelayURL)
}

// RemoveRepoService removes one of our public relay URLs.
func RemoveRepoService(url string) func(*Settings) error {
	return removeFrom(repoServices, url, NormalizeRelayURL)
}

// SetRepoBootstrap sets the repository sync's bootstrap relay; "" = none.
func SetRepoBootstrap(url string) func(*Settings) error {
	return func(s *Settings) (err error) {
		if url == "" {
			s.RepoSyncBootstrap = ""
			return nil
		}
		s.RepoSyncBootstrap, err = NormalizeRelayURL(url)
		return err
	}
}

// SetRepoLocalRelays allows or refuses (the default) dialling the local
// relays announcements name: ws:// URLs and loopback, private, link-local
// and unique-local addresses.
func SetRepoLocalRelays(allow bool) func(*Settings) error {
	return func(s *Settings) error { s.RepoSyncLocalRelays = allow; return nil }
}

// TrustProxy names a reverse proxy in front of this server by its address.
func TrustProxy(addr string) func(*Settings) error {
	return addTo(trustedProxies, addr, ParseProxyAddress)
}

// UntrustProxy takes a reverse proxy off the list.
func UntrustProxy(addr string) func(*Settings) error {
	return removeFrom(trustedProxies, addr, ParseProxyAddress)
}

// AllowHost lets requests name this server by host (a reverse proxy's name).
func AllowHost(name string) func(*Settings) error { return addTo(allowedHosts, name, ParseHostName) }

// DisallowHost takes a host name off the allow-list.
func DisallowHost(name string) func(*Settings) error {
	return removeFrom(allowedHosts, name, ParseHostName)
}

// AllowOrigin lets a web page's origin read from and write to the server.
func AllowOrigin(origin string) func(*Settings) error {
	return addTo(allowedOrigins, origin, ParseOrigin)
}

// DisallowOrigin takes a web page's origin off the allow-list.
func DisallowOrigin(origin string) func(*Settings) error {
	return removeFrom(allowedOrigins, origin, ParseOrigin)
}

func relays(s *Settings) *[]string         { return &s.Relays }
func roots(s *Settings) *[]string          { return &s.Roots }
func repoServices(s *Settings) *[]string   { return &s.RepoSyncServices }
func allowedHosts(s *Settings) *[]string   { return &s.AllowedHosts }
func allowedOrigins(s *Settings) *[]string { return &s.AllowedOrigins }
func trustedProxies(s *Settings) *[]string { return &s.TrustedProxies }

// addTo inserts the parsed value into a sorted list unless it is there.
func addTo(list func(*Settings) *[]string, typed string, parse func(string) (string, error)) func(*Settings) error {
	return func(s *Settings) error {
		v, err := parse(typed)
		if err != nil {
			return err
		}
		l := list(s)
		if i, found := slices.BinarySearch(*l, v); !found {
			*l = slices.Insert(*l, i, v)
		}
		return nil
	}
}

// removeFrom deletes the parsed value from a list; an absent one is no error.
func removeFrom(list func(*Settings) *[]string, typed string, parse func(string) (string, error)) func(*Settings) error {
	return func(s *Settings) error {
		v, err := parse(typed)
		if err != nil {
			return err
		}
		l := list(s)
		// compare parsed forms: a value kept before a rule changed still goes
		*l = slices.DeleteFunc(*l, func(x string) bool {
			p, err := parse(x)
			return x == v || err == nil && p == v
		})
		return nil
	}
}
