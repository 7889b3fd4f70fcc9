package store

import (
	"encoding/json"
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
func decodeTagsFast(s string) (nostr.Tags, bool) {
	ntags, nvalues, ok := scanTags(s, nil, nil)
	if !ok {
		return nil, false
	}
	tags := make(nostr.Tags, 0, ntags)
	values := make([]string, 0, nvalues)
	_, _, ok = scanTags(s, &tags, &values)
	return tags, ok
}

// scanTags walks s once. With tags and values nil it only validates and
// counts; otherwise it fills them (sized by the counting pass, so every tag
// is a full-capacity window of values that an append cannot spill from).
func scanTags(s string, tags *nostr.Tags, values *[]string) (ntags, nvalues int, ok bool) {
	i := skipSpace(s, 0)
	if i >= len(s) || s[i] != '[' {
		return 0, 0, false
	}
	i = skipSpace(s, i+1)
	if i < len(s) && s[i] == ']' {
		return 0, 0, skipSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '[' {
			return 0, 0, false
		}
		first := nvalues
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == ']' {
			i++
		} else {
			for {
				v, next, ok := plainString(s, i)
				if !ok {
					return 0, 0, false
				}
				if values != nil {
					*values = append(*values, v)
				}
				nvalues++
				i = skipSpace(s, next)
				if i < len(s) && s[i] == ',' {
					i = skipSpace(s, i+1)
					continue
				}
				if i < len(s) && s[i] == ']' {
					i++
					break
				}
				return 0, 0, false
			}
		}
		if tags != nil {
			*tags = append(*tags, nostr.Tag((*values)[first:nvalues:nvalues]))
		}
		ntags++
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
			continue
		}
		if i < len(s) && s[i] == ']' {
			return ntags, nvalues, skipSpace(s, i+1) == len(s)
		}
		return 0, 0, false
	}
}

// plainString reads a JSON string starting at s[i] that has no escapes and
// is valid UTF-8 (so its bytes are its value); next is the index after the
// closing quote.
func plainString(s string, i int) (v string, next int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	ascii := true
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			v = s[i+1 : j]
			return v, j + 1, ascii || utf8.ValidString(v)
		case c == '\\' || c < 0x20:
			return "", 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", 0, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
