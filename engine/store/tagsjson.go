package store

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/nbd-wtf/go-nostr"
)

// decodeTags parses the stored tags column, a JSON array of arrays of
// strings, as json.Unmarshal into nostr.Tags would. Scan decodes every
// stored event, so the common shape (compact, strings without escapes) is
// read directly: values are substrings of s, and all tags of an event share
// one backing array. Anything else (escapes, null, numbers, invalid UTF-8,
// malformed text) goes to encoding/json, so results and errors are its own.
func decodeTags(s string) (nostr.Tags, error) {
	if tags, ok := decodeTagsFast(s); ok {
		return tags, nil
	}
	var tags nostr.Tags
	err := json.Unmarshal([]byte(s), &tags)
	return tags, err
}

// decodeTagsFast handles `[` (`[` ("string" (`,` "string")*)? `]`)* `]` with
// plain strings and optional JSON whitespace; ok is false for anything else.
// Capacities come from counting brackets and commas, which bound the tags
// and values (quoted ones only add to the bound), so each tag is a
// full-capacity window of one backing array that an append cannot spill from.
func decodeTagsFast(s string) (tags nostr.Tags, ok bool) {
	values := make([]string, 0, strings.Count(s, ",")+1)
	tags = make(nostr.Tags, 0, max(strings.Count(s, "[")-1, 0))
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '[' {
		return nil, false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return tags, skipSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '[' {
			return nil, false
		}
		first := len(values)
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == ']' {
			i++
		} else {
			for {
				v, next, ok := plainString(s, i)
				if !ok {
					return nil, false
				}
				values = append(values, v)
				i = skipSpace(s, next)
				if i < len(s) && s[i] == ',' {
					i = skipSpace(s, i+1)
					continue
				}
				if i < len(s) && s[i] == ']' {
					i++
					break
				}
				return nil, false
			}
		}
		tags = append(tags, nostr.Tag(values[first:len(values):len(values)]))
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
			continue
		}
		if i < len(s) && s[i] == ']' {
			return tags, skipSpace(s, i+1) == len(s)
		}
		return nil, false
	}
}

// plainString reads a JSON string starting at s[i] that has no escapes and
// is valid UTF-8 (so its bytes are its value); next is the index after the
// closing quote.
func plainString(s string, i int) (v string, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	end := strings.IndexByte(s[i+1:], '"')
	if end < 0 {
		return "", 0, false
	}
	v = s[i+1 : i+1+end]
	ascii := true
	for j := 0; j < len(v); j++ {
		if c := v[j]; c < 0x20 || c == '\\' {
			return "", 0, false // an escape (perhaps of a quote) or a raw control byte
		} else if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return v, i + 2 + end, ascii || utf8.ValidString(v)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
