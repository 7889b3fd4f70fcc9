package server

import (
	"encoding/json"

	"github.com/mailru/easyjson/jwriter"
)

// splitFrame splits a client message, a JSON array, into its raw elements
// without reflection: encoding/json into []json.RawMessage costs more than
// the rest of reading an EVENT. One json.Valid pass keeps encoding/json's
// strictness; past it the bytes are valid JSON, so the split only tracks
// nesting and strings. The elements alias data, which each websocket read
// allocates anew.
func splitFrame(data []byte) ([]json.RawMessage, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	i := skipSpace(data, 0)
	if data[i] != '[' {
		return nil, false
	}
	var frame []json.RawMessage
	i = skipSpace(data, i+1)
	for data[i] != ']' {
		end := valueEnd(data, i)
		frame = append(frame, data[i:end])
		i = skipSpace(data, end)
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return frame, true
}

func skipSpace(data []byte, i int) int {
	for data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r' {
		i++
	}
	return i
}

// valueEnd returns the index just past the valid JSON value starting at i.
func valueEnd(data []byte, i int) int {
	depth, inString := 0, false
	for ; ; i++ {
		c := data[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if depth == 0 {
					return i + 1
				}
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth == 0 { // the enclosing array's end: a scalar just ended
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i
		}
	}
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
