package engine

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// Settings keys in the store. The database is the shared truth between a
// running server and CLI commands on the same data directory.
const (
	keyStrategy     = "strategy"
	keyInterval     = "intervalMinutes"
	keyPaused       = "paused"
	keyLimits       = "limits"
	keyListen       = "listen"
	keyAllowLAN     = "allowLan"
	keyScopeProfile = "scopeProfile"
	keyStartAtLogin = "startAtLogin"
	keyRepoService  = "repoSyncService"
	keyAuthKey      = "authKey"
	keyLastPass     = "lastPass" // outcome of the last sync pass, JSON
)

// DefaultListen is where the server listens unless told otherwise.
const DefaultListen = "127.0.0.1:7447"

// Settings is the typed view of the settings table.
type Settings struct {
	Strategy        string
	IntervalMinutes int
	Paused          bool
	Limits          status.Limits
	Listen          string
	AllowLAN        bool
	ScopeProfile    string
	StartAtLogin    bool
	RepoSyncService string
}

// LoadSettings reads every setting, with defaults for those never set.
func LoadSettings(st *store.Store) (Settings, error) {
	s := Settings{
		Strategy: status.FrontierInterval, IntervalMinutes: 15, Limits: status.DefaultLimits(),
		Listen: DefaultListen, ScopeProfile: "x.com",
	}
	var firstErr error
	get := func(key string, apply func(string) error) {
		v, ok, err := st.Setting(key)
		if err == nil && ok {
			err = apply(v)
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("setting %s: %w", key, err)
		}
	}
	get(keyStrategy, func(v string) error { s.Strategy = v; return nil })
	get(keyInterval, func(v string) (err error) { s.IntervalMinutes, err = strconv.Atoi(v); return })
	get(keyPaused, func(v string) (err error) { s.Paused, err = strconv.ParseBool(v); return })
	get(keyLimits, func(v string) error { return json.Unmarshal([]byte(v), &s.Limits) })
	get(keyListen, func(v string) error { s.Listen = v; return nil })
	get(keyAllowLAN, func(v string) (err error) { s.AllowLAN, err = strconv.ParseBool(v); return })
	get(keyScopeProfile, func(v string) error { s.ScopeProfile = v; return nil })
	get(keyStartAtLogin, func(v string) (err error) { s.StartAtLogin, err = strconv.ParseBool(v); return })
	get(keyRepoService, func(v string) error { s.RepoSyncService = v; return nil })
	return s, firstErr
}

// SetStrategy stores the sync strategy (SPEC §6.1).
func SetStrategy(st *store.Store, id string) error {
	if !slices.Contains(status.Strategies, id) {
		return fmt.Errorf("unknown strategy %q: choose one of %v", id, status.Strategies)
	}
	return st.SetSetting(keyStrategy, id)
}

// SetInterval stores the interval strategy's period; 0 = manual only.
func SetInterval(st *store.Store, minutes int) error {
	if !slices.Contains(status.IntervalChoices, minutes) {
		return fmt.Errorf("interval %d is not one of 5, 15, 30, 60 or 0 (manual)", minutes)
	}
	return st.SetSetting(keyInterval, strconv.Itoa(minutes))
}

// SetPaused pauses or resumes syncing.
func SetPaused(st *store.Store, paused bool) error {
	return st.SetSetting(keyPaused, strconv.FormatBool(paused))
}

// SetLimits validates and stores the frontier caps and heap guardrails.
func SetLimits(st *store.Store, l status.Limits) error {
	if err := ValidateLimits(l); err != nil {
		return err
	}
	b, _ := json.Marshal(l)
	return st.SetSetting(keyLimits, string(b))
}

// ValidateLimits checks every cap is positive and the depth within its hard cap.
func ValidateLimits(l status.Limits) error {
	if l.MaxDepth < 1 || l.MaxDepth > status.MaxDepthHardCap {
		return fmt.Errorf("maxDepth %d is outside 1..%d", l.MaxDepth, status.MaxDepthHardCap)
	}
	for name, v := range map[string]int{
		"maxAuthorsPerLevel": l.MaxAuthorsPerLevel, "maxTotalAuthors": l.MaxTotalAuthors,
		"maxEvents": l.MaxEvents, "maxRatingEvents": l.MaxRatingEvents, "maxDiscoveryEvents": l.MaxDiscoveryEvents,
		"heapNodeLimit": l.HeapNodeLimit, "heapEdgeLimit": l.HeapEdgeLimit,
	} {
		if v < 1 {
			return fmt.Errorf("%s must be at least 1, not %d", name, v)
		}
	}
	return nil
}

// SetListen stores the listen address and whether local-network peers may
// connect. It takes effect at the next start of the server.
func SetListen(st *store.Store, addr string, allowLAN bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q is not host:port: %v", addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("listen port %q is not a number from 0 to 65535", port)
	}
	if host != "" && host != "localhost" && net.ParseIP(host) == nil {
		return fmt.Errorf("listen host %q is not an IP address", host)
	}
	if err := st.SetSetting(keyListen, addr); err != nil {
		return err
	}
	return st.SetSetting(keyAllowLAN, strconv.FormatBool(allowLAN))
}

// SetScopeProfile stores the scope profile; only x.com is supported now.
func SetScopeProfile(st *store.Store, scope string) error {
	if scope != "x.com" {
		return fmt.Errorf("scope profile %q is not supported: only x.com", scope)
	}
	return st.SetSetting(keyScopeProfile, scope)
}

// SetStartAtLogin records the start-at-login choice.
func SetStartAtLogin(st *store.Store, on bool) error {
	return st.SetSetting(keyStartAtLogin, strconv.FormatBool(on))
}

// loadAuthKey returns the data directory's NIP-42 key, generating it on
// first use. The server has no identity of its own: this key only answers
// relays that ask for AUTH before serving reads.
func loadAuthKey(st *store.Store) (string, error) {
	if k, ok, err := st.Setting(keyAuthKey); err != nil || ok {
		return k, err
	}
	k := nostr.GeneratePrivateKey()
	return k, st.SetSetting(keyAuthKey, k)
}
