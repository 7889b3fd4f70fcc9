// Package words says the engine's facts in a person's words: the look-up
// sentence, coverage reasons, relay trouble and when it is retried, the
// set-up steps, people by name. The window (package ui) and the command line
// (app's status and resolve) both speak them, so the two never tell a person
// different things about the same facts.
//
// It is presentation, so it lives beside the window and not under engine/
// (the engine states facts; how they are put is ours to change without
// touching it), and it imports no Fyne, so the command line and the tests use
// it without a display.
package words

import (
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr/nip19"
)

// Count writes n with thousands separators: 1234567 -> "1,234,567".
func Count[N int | int64](n N) string {
	digits := strconv.FormatInt(int64(n), 10)
	sign := ""
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String()
}

// Plural is n and the noun, "1 rating" or "2 ratings".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(n) + " " + noun + "s"
}

// People is n people: "1 person", "2 people".
func People(n int) string {
	if n == 1 {
		return "1 person"
	}
	return Count(n) + " people"
}

// verb is one or many by n: "trusts" for 1, "trust" for more.
func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Hops is a distance from the user in the words every view uses: "1 hop
// from you", "2 hops from you"; 0 is "you".
func Hops(depth int) string {
	if depth == 0 {
		return "you"
	}
	return Plural(depth, "hop") + " from you"
}

// Npub shows a hex public key as an npub, or as given if it is not a valid
// key (the engine's word is shown rather than hidden).
func Npub(hexKey string) string {
	if len(hexKey) == 64 {
		if n, err := nip19.EncodePublicKey(hexKey); err == nil {
			return n
		}
	}
	return hexKey
}

// ShortKey is a hex public key as a short npub: "npub1abcdef…uvwxyz".
func ShortKey(hexKey string) string {
	k := Npub(hexKey)
	if len(k) <= 20 {
		return k
	}
	return k[:11] + "…" + k[len(k)-6:]
}

// Namer names a person by hex key: "you" for a root, their display name
// where known, else a short npub.
type Namer func(hexKey string) string

// NamerOf is the Namer of a set of roots and known display names (by hex
// key; nil when none are known).
func NamerOf(roots []string, known map[string]string) Namer {
	return func(hexKey string) string {
		for _, r := range roots {
			if r == hexKey {
				return "you"
			}
		}
		if name := known[hexKey]; name != "" {
			return name
		}
		return ShortKey(hexKey)
	}
}

// Root names one of the user's roots: "you", with the root's display name
// where known ("you (Alice)"), since a person may follow from several keys.
func Root(name string) string {
	if name == "" {
		return "you"
	}
	return "you (" + name + ")"
}

// Cut shortens text to at most n characters, ending in "…".
func Cut(text string, n int) string {
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	return string(r[:n-1]) + "…"
}

// capitalized is s with its first letter upper-case.
func capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
