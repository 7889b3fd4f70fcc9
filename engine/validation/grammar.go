package validation

import "strings"

// Size limits from NIP-32009 / NIP-32014.
const (
	maxTokenBytes   = 128  // each s value, c, l label
	maxContentRunes = 1024 // content, in Unicode characters
)

// isName reports a lowercase protocol name: [a-z0-9][a-z0-9._-]*.
func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isNameStart(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isNameStart(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') }

// isPath reports names joined by ':' with no empty segment — the grammar
// of `c`, `l` labels and `k`.
func isPath(s string) bool {
	for {
		head, rest, more := strings.Cut(s, ":")
		if !isName(head) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseUnixSeconds accepts a non-negative base-10 integer that fits int64.
func parseUnixSeconds(s string) (int64, bool) {
	if !isDigits(s) || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
	}
	return n, true
}

// isStructuredHint reports `class:property:value`: class and property are
// protocol names, value is non-empty (it may itself contain colons).
func isStructuredHint(s string) bool {
	class, rest, ok := strings.Cut(s, ":")
	if !ok || !isName(class) {
		return false
	}
	property, value, ok := strings.Cut(rest, ":")
	return ok && isName(property) && value != ""
}

// isTypedSubject reports an `i` primary value: a protocol-name class, a
// colon, and a non-empty remainder (`user:id:1`, `hash:<hex>`, `web:https:…`).
func isTypedSubject(s string) bool {
	class, rest, ok := strings.Cut(s, ":")
	return ok && isName(class) && rest != ""
}

func hasUpper(s string) bool {
	return strings.ToLower(s) != s
}

// canonicalScore validates a 32014 score and returns its canonical form:
// a decimal in [0, 100], no sign, exponent or leading zeros, at most six
// fractional digits; trailing fractional zeros are dropped ("50.0" -> "50").
func canonicalScore(s string) (string, bool) {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if !isDigits(intPart) || len(intPart) > 3 || (len(intPart) > 1 && intPart[0] == '0') {
		return "", false
	}
	if hasFrac && (!isDigits(frac) || len(frac) > 6) {
		return "", false
	}
	frac = strings.TrimRight(frac, "0")
	if len(intPart) == 3 && (intPart != "100" || frac != "") {
		return "", false
	}
	if frac == "" {
		return intPart, true
	}
	return intPart + "." + frac, true
}
