package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

func cmdRelays(c *cli) error {
	return editList(c, listCommand{
		name: "relays", what: "a URL", normalize: settings.NormalizeRelayURL,
		add: settings.AddRelay, remove: settings.RemoveRelay,
		list:  func(s settings.Settings) []string { return s.Relays },
		empty: "no relays yet: add one with `dtp-personal relays add wss://relay.example.com`",
	})
}

func cmdRoots(c *cli) error {
	return editList(c, listCommand{
		name: "roots", what: "an npub or hex public key", normalize: settings.ParsePubkey,
		add: settings.AddRoot, remove: settings.RemoveRoot,
		list:  func(s settings.Settings) []string { return s.Roots },
		show:  npubOf,
		empty: "no roots yet: add your own public key with `dtp-personal roots add npub1…`",
	})
}

// npubOf shows a hex public key as the npub people recognise.
func npubOf(hex string) string {
	if npub, err := validation.EncodeNpub(hex); err == nil {
		return npub
	}
	return hex
}

// listCommand is a setting that is a list the user adds to and removes from.
type listCommand struct {
	name, what  string
	normalize   func(string) (string, error) // the form the list keeps
	add, remove func(string) func(*settings.Settings) error
	list        func(settings.Settings) []string
	show        func(string) string // how a kept value is printed; nil: as kept
	empty       string              // printed (on stderr) for an empty list: what to do next
}

func (lc listCommand) shown(v string) string {
	if lc.show == nil {
		return v
	}
	return lc.show(v)
}

// holds reports whether the list holds v, comparing normalised forms (as
// the settings' own remove does: a value kept before a rule changed counts).
func (lc listCommand) holds(s settings.Settings, v string) bool {
	return slices.ContainsFunc(lc.list(s), func(x string) bool {
		n, err := lc.normalize(x)
		return x == v || err == nil && n == v
	})
}

// editList runs `NAME add X`, `NAME remove X` or `NAME list [--json]`.
func editList(c *cli, lc listCommand) error {
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parseAny(); err != nil {
		return err
	}
	return runList(c, lc, c.args, *asJSON)
}

// runList runs a list command's verb, args[0], on the data directory. Adding
// what is there already says so; removing what is not there is an error.
func runList(c *cli, lc listCommand, args []string, asJSON bool) error {
	verb := ""
	if len(args) > 0 {
		verb = args[0]
	}
	switch verb {
	case "add", "remove":
		if len(args) < 2 {
			return fmt.Errorf("%w: %s %s needs %s", errUsage, lc.name, verb, lc.what)
		}
		if len(args) > 2 {
			return fmt.Errorf("%w: %s %s takes one value; %q left over (quote a value that contains spaces)",
				errUsage, lc.name, verb, strings.Join(args[2:], " "))
		}
	case "list", "":
		if len(args) > 1 {
			return fmt.Errorf("%w: %s list takes no argument; %q left over", errUsage, lc.name, strings.Join(args[1:], " "))
		}
	default:
		return fmt.Errorf("%w: %s %s: use add, remove or list", errUsage, lc.name, verb)
	}
	st, s, err := openSettings(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if verb == "list" || verb == "" {
		if asJSON {
			return printJSON(nonNil(lc.list(s)))
		}
		if len(lc.list(s)) == 0 && lc.empty != "" {
			fmt.Fprintln(os.Stderr, lc.empty)
		}
		for _, item := range lc.list(s) {
			fmt.Println(lc.shown(item))
		}
		return nil
	}
	v, err := lc.normalize(args[1])
	if err != nil {
		return err
	}
	switch held := lc.holds(s, v); {
	case verb == "add" && held:
		fmt.Println("already there:", lc.shown(v))
		return nil
	case verb == "remove" && !held:
		return fmt.Errorf("%s is not in %s (see `dtp-personal %s list`)", lc.shown(v), lc.name, lc.name)
	}
	edit, done := lc.add, "added"
	if verb == "remove" {
		edit, done = lc.remove, "removed"
	}
	if err := settings.Modify(st, edit(v)); err != nil {
		return err
	}
	fmt.Println(done, lc.shown(v))
	return nil
}
