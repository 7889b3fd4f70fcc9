package validation

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize turns untrusted display text (content, label descriptions) into
// plain text: markup tags (`<b>`, `</script>`, `<!-- … -->`) are removed,
// control and invisible formatting characters (bidi overrides, zero-width
// joiners) and invalid UTF-8 are dropped; newlines and tabs are kept. A '<'
// that does not open a closed tag ("a < b") is ordinary text. The signed
// event itself is never rewritten.
func Sanitize(s string) string {
	if plain(s) {
		return s // most text: an answer sanitises thousands of statements
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if s[i] == '<' && i+1 < len(s) && opensTag(s[i+1]) {
			// An unterminated '<x' cannot form a tag anywhere, so it stays text.
			if end := strings.IndexByte(s[i:], '>'); end >= 0 {
				i += end + 1
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plain reports whether s is printable ASCII, newlines and tabs, with no
// '<': Sanitize would return it as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '<' || (c < 0x20 || c > 0x7e) && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

func opensTag(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '!' || c == '?'
}
