package validation

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// CanonicalScope is the scope string of `d` material: unique `s` values,
// sorted as JavaScript sorts strings, joined with ","; "" when there are none.
func CanonicalScope(scopes []string) string {
	if len(scopes) == 0 {
		return ""
	}
	if len(scopes) == 1 {
		return scopes[0]
	}
	sorted := slices.Clone(scopes)
	sortScopes(sorted)
	return strings.Join(slices.Compact(sorted), ",")
}

// sortScopes sorts by UTF-16 code units, the order of JavaScript's default
// sort with which clients compute `d`. It differs from byte order only when
// a string holds characters above U+FFFF and others above U+E000.
func sortScopes(scopes []string) {
	slices.SortFunc(scopes, compareUTF16)
}

func compareUTF16(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
				return int(a[i]) - int(b[i])
			}
			return slices.Compare(utf16.Encode([]rune(a[i:])), utf16.Encode([]rune(b[i:])))
		}
	}
	return len(a) - len(b)
}

// Material is the text hashed into `d` for a 32009 / 32014 slot. The colons
// are always present so an empty scope or context cannot collide with a
// neighbour field. subjectTag is 'p', 'e' or 'i'.
func Material(subjectTag byte, subject string, scopes []string, context string) string {
	scope := CanonicalScope(scopes)
	if subjectTag == 'i' {
		return subject + ":" + scope + ":" + context
	}
	return string(subjectTag) + ":" + subject + ":" + scope + ":" + context
}

// StatementD is the `d` tag value a valid 32009 / 32014 event must carry:
// lowercase hex SHA-256 of Material. Hints, value, labels, x/y and content
// never enter it.
func StatementD(subjectTag byte, subject string, scopes []string, context string) string {
	sum := sha256.Sum256([]byte(Material(subjectTag, subject, scopes, context)))
	return hex.EncodeToString(sum[:])
}
