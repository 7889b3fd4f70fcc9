package settings

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// memStore is a Store in memory that logs every write.
type memStore struct {
	values        map[string]string
	relays, roots []string
	writes        []string
}

func newMemStore() *memStore { return &memStore{values: map[string]string{}} }

func (m *memStore) Setting(key string) (string, bool, error) {
	v, ok := m.values[key]
	return v, ok, nil
}
func (m *memStore) SetSetting(key, value string) error {
	m.values[key] = value
	m.writes = append(m.writes, key+"="+value)
	return nil
}
func (m *memStore) Relays() ([]string, error) { return slices.Clone(m.relays), nil }
func (m *memStore) Roots() ([]string, error)  { return slices.Clone(m.roots), nil }
func (m *memStore) AddRelay(u string) error   { return m.edit(&m.relays, "+relay ", u, true) }
func (m *memStore) RemoveRelay(u string) error {
	return m.edit(&m.relays, "-relay ", u, false)
}
func (m *memStore) AddRoot(h string) error    { return m.edit(&m.roots, "+root ", h, true) }
func (m *memStore) RemoveRoot(h string) error { return m.edit(&m.roots, "-root ", h, false) }

// Configure runs edit on the store itself and undoes what it did when it
// fails, as a transaction would.
func (m *memStore) Configure(edit func(Tx) error) error {
	saved := memStore{values: maps.Clone(m.values), relays: slices.Clone(m.relays), roots: slices.Clone(m.roots), writes: slices.Clone(m.writes)}
	if err := edit(m); err != nil {
		*m = saved
		return err
	}
	return nil
}

func (m *memStore) edit(list *[]string, log, v string, add bool) error {
	m.writes = append(m.writes, log+v)
	*list = slices.DeleteFunc(*list, func(x string) bool { return x == v })
	if add {
		*list = append(*list, v)
		slices.Sort(*list)
	}
	return nil
}

const hexKey = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"

func TestLoadGivesDefaultsForWhatWasNeverSet(t *testing.T) {
	s, err := Load(newMemStore())
	if err != nil {
		t.Fatal(err)
	}
	d := Defaults()
	if s.Strategy != d.Strategy || s.IntervalMinutes != 15 || s.Limits != DefaultLimits() ||
		s.Listen != DefaultListen || s.ScopeProfile != "x.com" || len(s.RepoSyncServices) != 0 || s.RepoSyncServices == nil {
		t.Fatalf("defaults %+v", s)
	}
}

// Modify writes only the values that changed, and nothing at all when an
// edit is refused.
func TestModifyWritesOnlyWhatChanged(t *testing.T) {
	st := newMemStore()
	must := func(change func(*Settings) error) {
		t.Helper()
		if err := Modify(st, change); err != nil {
			t.Fatal(err)
		}
	}
	must(SetStrategy(GlobalContinuous))
	must(SetStrategy(GlobalContinuous))
	must(AddRelay(" WSS://Relay.Example:443/ "))
	must(AddRelay("wss://relay.example"))
	must(AddRoot(strings.ToUpper(hexKey)))
	must(AddRepoService("wss://Us.Example/"))
	must(SetRepoBootstrap("wss://boot.example"))
	must(SetRepoBootstrap(""))
	must(RemoveRoot("npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg"))
	want := []string{
		"strategy=global-continuous",
		"+relay wss://relay.example",
		"+root " + hexKey,
		`repoSyncServices=["wss://us.example"]`,
		"repoSyncBootstrap=wss://boot.example",
		"repoSyncBootstrap=",
		"-root " + hexKey,
	}
	if !slices.Equal(st.writes, want) {
		t.Fatalf("writes\n%q\nwant\n%q", st.writes, want)
	}

	st.writes = nil
	for _, bad := range []func(*Settings) error{
		SetStrategy("bogus"), SetInterval(7), SetListen(":7447", false), SetScopeProfile("y.com"),
		AddRelay("https://relay.example"), AddRoot("npub1notakey"), AddRepoService("wss://"),
		SetRepoBootstrap("relay.example"),
		func(s *Settings) error { s.Limits.MaxDepth = MaxDepthHardCap + 1; return nil },
		func(s *Settings) error { s.Limits.HeapEdgeLimit = 0; return nil },
		func(s *Settings) error { s.Limits.MaxTotalQueuedMiB = s.Limits.MaxQueuedMiB - 1; return nil },
	} {
		if err := Modify(st, bad); err == nil {
			t.Errorf("a bad edit was accepted; settings now %+v", st.values)
		}
	}
	if len(st.writes) != 0 {
		t.Fatalf("refused edits wrote %q", st.writes)
	}
}

// A value kept before a rule changed does not block other changes, and can
// still be removed by its new canonical form.
func TestModifyToleratesValuesKeptUnderOlderRules(t *testing.T) {
	st := newMemStore()
	st.relays = []string{"wss://old.example:443"}
	st.values["listen"] = ":7447"
	if err := Modify(st, SetPaused(true)); err != nil {
		t.Fatal(err)
	}
	if err := Modify(st, RemoveRelay("wss://old.example")); err != nil || len(st.relays) != 0 {
		t.Fatalf("remove by canonical form: %v, relays %q", err, st.relays)
	}
}

func TestParsePubkey(t *testing.T) {
	npub := "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg"
	for _, in := range []string{hexKey, strings.ToUpper(hexKey), " " + npub + " ", strings.ToUpper(npub)} {
		if got, err := ParsePubkey(in); err != nil || got != hexKey {
			t.Errorf("ParsePubkey(%q) = %q, %v", in, got, err)
		}
	}
	for in, msg := range map[string]string{
		"":                       "enter an npub",
		"npub1notakey":           "not a valid npub",
		npub[:len(npub)-1] + "q": "not a valid npub",
		hexKey[:62]:              "64-character hex",
		"nsec1whatever":          "secret key",
		"NSEC1WHATEVER":          "never paste it anywhere",
	} {
		_, err := ParsePubkey(in)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParsePubkey(%q) error %v, want it to mention %q", in, err, msg)
		}
		if err != nil && in != "" && strings.Contains(strings.ToLower(err.Error()), strings.ToLower(in)) && strings.HasPrefix(strings.ToLower(in), "nsec") {
			t.Errorf("ParsePubkey(%q) error %v repeats the secret key", in, err)
		}
	}
}

func TestNormalizeRelayURL(t *testing.T) {
	for in, want := range map[string]string{
		"wss://relay.example":           "wss://relay.example",
		" WSS://Relay.Example/ ":        "wss://relay.example",
		"wss://relay.example:443":       "wss://relay.example",
		"ws://relay.example:80/":        "ws://relay.example",
		"ws://relay.example:443":        "ws://relay.example:443",
		"wss://relay.example:7777/":     "wss://relay.example:7777",
		"wss://relay.example/Path/":     "wss://relay.example/Path",
		"wss://relay.example//":         "wss://relay.example/",
		"ws://127.0.0.1:1":              "ws://127.0.0.1:1",
		"wss://[::1]:443/":              "wss://[::1]",
		"wss://relay.example/?token=AB": "wss://relay.example?token=AB",
	} {
		if got, err := NormalizeRelayURL(in); err != nil || got != want {
			t.Errorf("NormalizeRelayURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"":                        "enter a relay URL",
		"https://relay.example":   "ws:// or wss://",
		"relay.example.com":       "ws:// or wss://",
		"wss://":                  "no host",
		"wss://me:pw@relay.x":     "user name",
		"wss://relay.example/#me": "fragment",
	} {
		if _, err := NormalizeRelayURL(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("NormalizeRelayURL(%q) error %v, want it to mention %q", in, err, msg)
		}
	}
}

func TestParseListen(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:7447", " 0.0.0.0:1 ", "localhost:65535", "[::1]:7447"} {
		if got, err := ParseListen(ok); err != nil || got != strings.TrimSpace(ok) {
			t.Errorf("ParseListen(%q) = %q, %v", ok, got, err)
		}
	}
	for in, msg := range map[string]string{
		"localhost":        "host:port",
		":7447":            "enter a host",
		"127.0.0.1:0":      "port must be",
		"127.0.0.1:99999":  "port must be",
		"127.0.0.1:http":   "port must be",
		"example.com:7447": "not an IP address",
	} {
		if _, err := ParseListen(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseListen(%q) error %v, want it to mention %q", in, err, msg)
		}
	}
}

// The limit table names every field of Limits once, with its JSON key and a
// help line, so the CLI, the UI and validation cannot miss one.
func TestLimitFieldsCoverLimits(t *testing.T) {
	var l Limits
	for i, f := range LimitFields {
		*f.Of(&l) = i + 1
	}
	v := reflect.ValueOf(l)
	if v.NumField() != len(LimitFields) {
		t.Fatalf("Limits has %d fields, the table %d", v.NumField(), len(LimitFields))
	}
	for i := range v.NumField() {
		tag := v.Type().Field(i).Tag.Get("json")
		j := slices.IndexFunc(LimitFields, func(f LimitField) bool { return f.JSON == tag })
		if j < 0 || v.Field(i).Int() != int64(j+1) {
			t.Errorf("field %s (json %q) is not the table's entry %d", v.Type().Field(i).Name, tag, j)
		}
	}
	for _, f := range LimitFields {
		if f.Help == "" {
			t.Errorf("%s has no help line for the window and `limits --help`", f.JSON)
		}
	}
	if err := DefaultLimits().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}

// The presets scale the people, events and memory caps for the size of
// network followed, set the max degree, keep the rest, and stay valid.
func TestLimitPresets(t *testing.T) {
	at := func(name string) Limits {
		t.Helper()
		p, err := LimitPresetNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		l := DefaultLimits()
		l.FollowThreshold, l.MaxConnections = 60, 7 // the user's, not the preset's
		p.Apply(&l)
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if l.FollowThreshold != 60 || l.MaxConnections != 7 || l.PageTimeoutSeconds != DefaultLimits().PageTimeoutSeconds {
			t.Errorf("%s changed what is not a preset's: %+v", name, l)
		}
		return l
	}
	small, normal, large := at("small"), at("normal"), at("large")
	if small.MaxDepth != 3 || small.MaxTotalAuthors != 5000 || small.HeapEdgeLimit != 1_250_000 {
		t.Errorf("small %+v", small)
	}
	if normal.MaxDepth != DefaultLimits().MaxDepth || normal.MaxEvents != DefaultLimits().MaxEvents {
		t.Errorf("normal %+v", normal)
	}
	if large.MaxDepth != MaxDepthHardCap || large.HeapEdgeLimit != 20_000_000 || large.MaxTotalAuthors != 80_000 {
		t.Errorf("large %+v", large)
	}
	if _, err := LimitPresetNamed("huge"); err == nil || !strings.Contains(err.Error(), "small, normal, large") {
		t.Errorf("an unknown preset: %v", err)
	}
}
