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

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: times beyond it
// are refused, as the extension refuses them.
const maxSafeInteger = 1<<53 - 1

// parseUnixSeconds accepts a base-10 integer in [0, maxSafeInteger].
func parseUnixSeconds(s string) (int64, bool) {
	if !isDigits(s) || len(s) > 16 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		n = n*10 + int64(s[i]-'0')
	}
	return n, n <= maxSafeInteger
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

func hasUpper(s string) bool {
	return strings.ToLower(s) != s
}

// isCanonicalScore reports a 32014 score already in canonical form, the
// only form the extension accepts (it refuses what it would rewrite): a
// decimal in [0, 100] with no sign, exponent, leading zero or trailing
// fractional zero, and at most six fraction digits ("50.5", not "50.50").
func isCanonicalScore(s string) bool {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if !isDigits(intPart) || len(intPart) > 3 || (len(intPart) > 1 && intPart[0] == '0') {
		return false
	}
	if hasFrac && (!isDigits(frac) || len(frac) > 6 || frac[len(frac)-1] == '0') {
		return false
	}
	return len(intPart) < 3 || (intPart == "100" && !hasFrac)
}

// ScoreMicros is a canonical score in millionths (the most its six fraction
// digits can say): "50.598334" is 50598334. ok is false for anything else.
func ScoreMicros(score string) (micros int32, ok bool) {
	if !isCanonicalScore(score) {
		return 0, false
	}
	intPart, frac, _ := strings.Cut(score, ".")
	frac += strings.Repeat("0", 6-len(frac))
	for _, c := range intPart + frac {
		micros = micros*10 + int32(c-'0')
	}
	return micros, true
}
