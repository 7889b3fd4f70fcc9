package server

import (
	"encoding/json"

	"github.com/mailru/easyjson/jwriter"
)

// splitFrame splits a client message, a JSON array, into its raw elements
// in one pass without reflection: encoding/json into []json.RawMessage, or a
// json.Valid pass before a split, cost more than the rest of reading an
// EVENT. It is exactly as strict as encoding/json (FuzzFrame holds it to
// that). The elements alias data.
func splitFrame(data []byte) ([]json.RawMessage, bool) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '[' {
		return nil, false
	}
	var frame []json.RawMessage
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return frame, skipSpace(data, i+1) == len(data)
	}
	for {
		end, ok := scanValue(data, i, 1)
		if !ok {
			return nil, false
		}
		frame = append(frame, data[i:end])
		i = skipSpace(data, end)
		if i == len(data) {
			return nil, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return frame, skipSpace(data, i+1) == len(data)
		default:
			return nil, false
		}
	}
}

// maxDepth is encoding/json's limit on nested arrays and objects.
const maxDepth = 10000

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the index just past the JSON value starting at i, and
// whether there is one; depth counts the arrays and objects around it.
func scanValue(data []byte, i, depth int) (int, bool) {
	if i == len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '"':
		return scanString(data, i)
	case c == '{' || c == '[':
		return scanComposite(data, i, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return scanNumber(data, i)
	case c == 't':
		return scanWord(data, i, "true")
	case c == 'f':
		return scanWord(data, i, "false")
	case c == 'n':
		return scanWord(data, i, "null")
	}
	return i, false
}

// scanComposite scans the array or object starting at i.
func scanComposite(data []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	object := data[i] == '{'
	closer := byte(']')
	if object {
		closer = '}'
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == closer {
		return i + 1, true
	}
	for {
		var ok bool
		if object {
			if i == len(data) || data[i] != '"' {
				return i, false
			}
			if i, ok = scanString(data, i); !ok {
				return i, false
			}
			if i = skipSpace(data, i); i == len(data) || data[i] != ':' {
				return i, false
			}
			i = skipSpace(data, i+1)
		}
		if i, ok = scanValue(data, i, depth); !ok {
			return i, false
		}
		if i = skipSpace(data, i); i == len(data) {
			return i, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case closer:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// scanString scans the string starting at i: no control characters, only
// JSON's escapes. Other bytes pass, as in encoding/json's validation.
func scanString(data []byte, i int) (int, bool) {
	for i++; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i == len(data) {
				return i, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) {
					return i, false
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanNumber scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at i.
func scanNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i == len(data) || !isDigit(data[i]):
		return i, false
	case data[i] == '0':
		i++
	default:
		i = skipDigits(data, i)
	}
	if i < len(data) && data[i] == '.' {
		if i++; i == len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = skipDigits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i == len(data) || !isDigit(data[i]) {
			return i, false
		}
		i = skipDigits(data, i)
	}
	return i, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

func scanWord(data []byte, i int, word string) (int, bool) {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// okFrame encodes ["OK", id, accepted, msg], the reply to every pushed
// event, without encoding/json's reflection over []any.
func okFrame(id string, accepted bool, msg string) []byte {
	var w jwriter.Writer
	w.RawString(`["OK",`)
	w.String(id)
	w.RawByte(',')
	w.Bool(accepted)
	w.RawByte(',')
	w.String(msg)
	w.RawByte(']')
	b, _ := w.BuildBytes()
	return b
}
