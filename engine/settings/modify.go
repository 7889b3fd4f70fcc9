package settings

import (
	"fmt"
	"slices"
)

// Store is where settings are kept: the settings table for single values,
// tables of their own for relays and roots (satisfied by *store.Store).
// Reads outside a change may come from a read pool; a change runs in one
// transaction (Configure), and when it changes something it bumps the
// store's revision once, which is how a running server notices a change
// made by another process.
type Store interface {
	reader
	Configure(edit func(Tx) error) error
}

// Tx is what a change may read and write inside its transaction. It is an
// alias of an interface literal, declared as store.ConfigTx is, so that
// *store.Store's Configure satisfies Store.
type Tx = interface {
	Setting(key string) (value string, ok bool, err error)
	SetSetting(key, value string) error
	Relays() ([]string, error)
	AddRelay(url string) error
	RemoveRelay(url string) error
	Roots() ([]string, error)
	AddRoot(hex string) error
	RemoveRoot(hex string) error
}

// reader reads every setting: a Store outside a change, or a Tx inside one.
type reader interface {
	Setting(key string) (value string, ok bool, err error)
	Relays() ([]string, error)
	Roots() ([]string, error)
}

// Load reads every setting, with defaults for those never set.
func Load(st Store) (Settings, error) { return load(st) }

func load(st reader) (Settings, error) {
	s := Defaults()
	for _, k := range keys {
		v, ok, err := st.Setting(k.name)
		if err == nil && ok {
			err = k.decode(&s, v)
		}
		if err != nil {
			return s, fmt.Errorf("setting %s: %w", k.name, err)
		}
	}
	var err error
	if s.Relays, err = st.Relays(); err != nil {
		return s, err
	}
	s.Roots, err = st.Roots()
	return s, err
}

// Modify loads the settings, lets change edit them, checks every value that
// changed and writes only those, all in one transaction: another process
// sees all of the change or none of it, and a change made meanwhile by
// another process is not lost (it is read first). A value left as it was is
// neither checked nor written, so an old value does not block changing
// another.
func Modify(st Store, change func(*Settings) error) error {
	return st.Configure(func(tx Tx) error {
		from, err := load(tx)
		if err != nil {
			return err
		}
		to := from.clone()
		if err := change(&to); err != nil {
			return err
		}
		var writes []func() error
		for _, k := range keys {
			if v := k.encode(&to); v != k.encode(&from) {
				if err := k.check(&to); err != nil {
					return err
				}
				writes = append(writes, func() error { return tx.SetSetting(k.name, v) })
			}
		}
		if err := canonicalAll(added(from.Relays, to.Relays), NormalizeRelayURL); err != nil {
			return err
		}
		if err := canonicalAll(added(from.Roots, to.Roots), ParsePubkey); err != nil {
			return err
		}
		for _, w := range writes {
			if err := w(); err != nil {
				return err
			}
		}
		if err := writeList(from.Relays, to.Relays, tx.AddRelay, tx.RemoveRelay); err != nil {
			return err
		}
		return writeList(from.Roots, to.Roots, tx.AddRoot, tx.RemoveRoot)
	})
}

// writeList adds what is in to but not in from, and removes the reverse.
func writeList(from, to []string, add, remove func(string) error) error {
	for _, v := range added(from, to) {
		if err := add(v); err != nil {
			return err
		}
	}
	for _, v := range added(to, from) {
		if err := remove(v); err != nil {
			return err
		}
	}
	return nil
}

// added lists the values of to that are not in from.
func added(from, to []string) []string {
	var out []string
	for _, v := range to {
		if !slices.Contains(from, v) {
			out = append(out, v)
		}
	}
	return out
}

// canonical checks that v is what parse makes of it, so that only parsed
// values are kept.
func canonical(v string, parse func(string) (string, error)) error {
	p, err := parse(v)
	if err != nil {
		return err
	}
	if p != v {
		return fmt.Errorf("%q is not in canonical form (%q)", v, p)
	}
	return nil
}

func canonicalAll(vs []string, parse func(string) (string, error)) error {
	for _, v := range vs {
		if err := canonical(v, parse); err != nil {
			return err
		}
	}
	return nil
}
