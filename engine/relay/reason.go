package relay

import (
	"slices"
	"strings"
)

// Machine-readable prefixes of NIP-01 reasons (CLOSED, OK, NOTICE, NEG-ERR).
const (
	prefixAuthRequired = "auth-required"
	prefixRestricted   = "restricted"
	prefixRateLimited  = "rate-limited"
	prefixBlocked      = "blocked"
	prefixError        = "error"
	prefixInvalid      = "invalid"
)

var reasonPrefixes = []string{prefixAuthRequired, prefixRestricted, prefixRateLimited, prefixBlocked,
	prefixError, prefixInvalid, "duplicate", "pow", "mute"}

// reasonPrefix is the machine-readable prefix of a relay's reason, lower
// case without its colon, or "" when it has none. A leading "ERROR:" word
// is looked through: strfry writes every reason after one ("ERROR:
// auth-required: ..."), so the prefix that follows it is the one meant;
// "error: something" alone is NIP-01's error.
func reasonPrefix(reason string) string {
	word, rest, ok := splitPrefix(reason)
	if !ok {
		return ""
	}
	if word == prefixError {
		if inner, _, ok := splitPrefix(rest); ok {
			return inner
		}
	}
	return word
}

// splitPrefix splits "word: rest" when word is a NIP-01 prefix.
func splitPrefix(reason string) (word, rest string, ok bool) {
	word, rest, found := strings.Cut(strings.TrimSpace(reason), ":")
	word = strings.ToLower(word)
	if !found || !slices.Contains(reasonPrefixes, word) {
		return "", "", false
	}
	return word, rest, true
}
