package reposync

import (
	"net/netip"
	"net/url"
	"slices"
	"sync"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/settings"
)

// Why a relay an announcement names is not dialled: the labels of
// dtp_repo_sync_relays_refused and of status.RefusedRelay.Reason.
const (
	RefusedNotWSS   = "not-wss"        // ws://: only wss:// is dialled where an announcement points
	RefusedResolves = "resolves-local" // its name resolved to a local address when dialled
	RefusedRepoCap  = "repo-relay-cap" // past the cap on repository relays (Limits.MaxRepoRelays)
	RefusedPerRepo  = "per-repo-cap"   // past the cap on one repository's relays (Limits.MaxRelaysPerRepo)
	// and relay.LocalRange's names of an address in the URL: loopback, private, …
)

// dialPolicy is where announcements, which anyone writes, may make this
// server connect (SPEC §8 dial policy). A relay the user listed (a trust
// sync relay, the bootstrap relay) is always dialled; with local relays
// allowed, so is any other. Otherwise an announced relay is dialled only as
// wss:// and only where its address is public: an IP address in the URL is
// checked here, a name when it is dialled (relay.AddressCheck, on the
// address it resolved to). The caps bound how many relays announcements
// bring, keeping those most repositories share.
type dialPolicy struct {
	allowLocal bool
	listed     []string // the user's relays (normalised), exempt from the address rules
	maxRelays  int      // repository relays, the bootstrap relay not counted; 0 = no cap
	maxPerRepo int      // relays taken from one announcement; 0 = no cap
}

// policyOf is the dial policy the settings give.
func policyOf(s settings.Settings) dialPolicy {
	listed := slices.Clone(s.Relays)
	if s.RepoSyncBootstrap != "" {
		listed = append(listed, s.RepoSyncBootstrap)
	}
	slices.Sort(listed)
	return dialPolicy{allowLocal: s.RepoSyncLocalRelays, listed: slices.Compact(listed),
		maxRelays: s.Limits.MaxRepoRelays, maxPerRepo: s.Limits.MaxRelaysPerRepo}
}

// exempt reports whether relayURL is dialled wherever it points.
func (p dialPolicy) exempt(relayURL string) bool {
	return p.allowLocal || slices.Contains(p.listed, relayURL)
}

// refuses is why relayURL, named by an announcement, is not dialled, "" when
// its URL is fine (a name is checked again when dialled).
func (p dialPolicy) refuses(relayURL string) string {
	if p.exempt(relayURL) {
		return ""
	}
	u, err := url.Parse(relayURL)
	if err != nil {
		return RefusedNotWSS
	}
	if u.Scheme != "wss" {
		return RefusedNotWSS
	}
	if addr, err := netip.ParseAddr(u.Hostname()); err == nil {
		return relay.LocalRange(addr)
	}
	return ""
}

// check is the connect-time check of relayURL: nil when it is exempt, else
// public addresses only, each refusal noted in refused.
func (p dialPolicy) check(relayURL string, refused *dialRefusals) relay.AddressCheck {
	if p.exempt(relayURL) {
		return nil
	}
	return func(addr netip.Addr) error {
		err := relay.PublicOnly(addr)
		refused.note(relayURL, err)
		return err
	}
}

// dialRefusals are the relays whose last dial the policy refused, with why.
type dialRefusals struct {
	mu  sync.Mutex
	why map[string]string // relay → the refusal's words
}

func (d *dialRefusals) note(relayURL string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err == nil {
		delete(d.why, relayURL)
		return
	}
	if d.why == nil {
		d.why = map[string]string{}
	}
	d.why[relayURL] = err.Error()
}

// get is why relayURL's last dial was refused, "" when it was not.
func (d *dialRefusals) get(relayURL string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.why[relayURL]
}
