package settings

import (
	"encoding/json"
	"strconv"
)

// key is one setting kept in the store's settings table: its key, how its
// value is written and read, and the check a new value must pass.
type key struct {
	name   string
	encode func(*Settings) string
	decode func(*Settings, string) error
	check  func(*Settings) error
}

// keys are every setting kept in the settings table. Roots and relays have
// tables of their own.
var keys = []key{
	text("strategy", func(s *Settings) *string { return &s.Strategy },
		func(s *Settings) error { return checkStrategy(s.Strategy) }),
	integer("intervalMinutes", func(s *Settings) *int { return &s.IntervalMinutes },
		func(s *Settings) error { return checkInterval(s.IntervalMinutes) }),
	boolean("paused", func(s *Settings) *bool { return &s.Paused }),
	jsonValue("limits", func(s *Settings) any { return &s.Limits },
		func(s *Settings) error { return s.Limits.Validate() }),
	text("listen", func(s *Settings) *string { return &s.Listen },
		func(s *Settings) error { return canonical(s.Listen, ParseListen) }),
	boolean("allowLan", func(s *Settings) *bool { return &s.AllowLAN }),
	text("scopeProfile", func(s *Settings) *string { return &s.ScopeProfile },
		func(s *Settings) error { return canonical(s.ScopeProfile, ParseScopeProfile) }),
	boolean("startAtLogin", func(s *Settings) *bool { return &s.StartAtLogin }),
	boolean("notify", func(s *Settings) *bool { return &s.Notify }),
	jsonValue("repoSyncServices", func(s *Settings) any { return &s.RepoSyncServices },
		func(s *Settings) error { return canonicalAll(s.RepoSyncServices, NormalizeRelayURL) }),
	text("repoSyncBootstrap", func(s *Settings) *string { return &s.RepoSyncBootstrap },
		func(s *Settings) error {
			if s.RepoSyncBootstrap == "" {
				return nil
			}
			return canonical(s.RepoSyncBootstrap, NormalizeRelayURL)
		}),
	boolean("repoSyncLocalRelays", func(s *Settings) *bool { return &s.RepoSyncLocalRelays }),
	jsonValue("trustedProxies", func(s *Settings) any { return &s.TrustedProxies },
		func(s *Settings) error { return canonicalAll(s.TrustedProxies, ParseProxyAddress) }),
	jsonValue("allowedHosts", func(s *Settings) any { return &s.AllowedHosts },
		func(s *Settings) error { return canonicalAll(s.AllowedHosts, ParseHostName) }),
	jsonValue("allowedOrigins", func(s *Settings) any { return &s.AllowedOrigins },
		func(s *Settings) error { return canonicalAll(s.AllowedOrigins, ParseOrigin) }),
	integer("pruneAfterDays", func(s *Settings) *int { return &s.PruneAfterDays },
		func(s *Settings) error { return checkPruneDays(s.PruneAfterDays) }),
}

func text(name string, p func(*Settings) *string, check func(*Settings) error) key {
	return key{name: name, check: check,
		encode: func(s *Settings) string { return *p(s) },
		decode: func(s *Settings, v string) error { *p(s) = v; return nil }}
}

func integer(name string, p func(*Settings) *int, check func(*Settings) error) key {
	return key{name: name, check: check,
		encode: func(s *Settings) string { return strconv.Itoa(*p(s)) },
		decode: func(s *Settings, v string) (err error) { *p(s), err = strconv.Atoi(v); return }}
}

func boolean(name string, p func(*Settings) *bool) key {
	return key{name: name, check: func(*Settings) error { return nil },
		encode: func(s *Settings) string { return strconv.FormatBool(*p(s)) },
		decode: func(s *Settings, v string) (err error) { *p(s), err = strconv.ParseBool(v); return }}
}

// jsonValue keeps a struct or list as JSON; p returns a pointer to it.
// Decoding onto the default keeps the default of a field added later.
func jsonValue(name string, p func(*Settings) any, check func(*Settings) error) key {
	return key{name: name, check: check,
		encode: func(s *Settings) string { b, _ := json.Marshal(p(s)); return string(b) },
		decode: func(s *Settings, v string) error { return json.Unmarshal([]byte(v), p(s)) }}
}
