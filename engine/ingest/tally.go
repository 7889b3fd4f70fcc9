package ingest

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Tally counts the results of an import, the same way whether they came from
// this process's pipeline or over a running server's WebSocket.
type Tally struct {
	// Lines counts the events read: a JSONL file's non-blank lines, or the
	// events of an export's events.json.
	Lines, Stored, Duplicates, Rejected int
	FirstErrors                         []string // messages of the first refusals
	// Refused counts the refusals by rule (RuleOf), every one of them.
	Refused map[string]int
	// Format is what the import read (importer.FormatJSONL, …).
	Format string
}

const (
	firstErrorsKept = 10
	progressEvery   = 1000 // answers between progress reports
)

// Add counts one result and reports whether a progress report is due.
func (t *Tally) Add(r Result) (progressDue bool) {
	switch r.Outcome {
	case Stored:
		t.Stored++
	case Duplicate, Superseded:
		t.Duplicates++
	default:
		t.Rejected++
		if len(t.FirstErrors) < firstErrorsKept {
			t.FirstErrors = append(t.FirstErrors, r.Message)
		}
		if t.Refused == nil {
			t.Refused = map[string]int{}
		}
		t.Refused[RuleOf(r.Message)]++
	}
	return (t.Stored+t.Duplicates+t.Rejected)%progressEvery == 0
}

// RuleCount is how many refusals one rule made.
type RuleCount struct {
	Rule  string
	Count int
}

// Rules are the refusals by rule, most first.
func (t Tally) Rules() []RuleCount {
	out := make([]RuleCount, 0, len(t.Refused))
	for rule, n := range t.Refused {
		out = append(out, RuleCount{rule, n})
	}
	slices.SortFunc(out, func(a, b RuleCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Rule, b.Rule))
	})
	return out
}

// RuleOf is the rule an OK message names, without what varies from event
// to event: the prefix and the rule up to its detail ("invalid: line 4 is
// not a JSON event: unexpected end" is "invalid: line N is not a JSON
// event"), numbers as N.
func RuleOf(message string) string {
	prefix, rest, found := strings.Cut(message, ": ")
	if found {
		rest, _, _ = strings.Cut(rest, ": ")
		message = prefix + ": " + rest
	}
	var b strings.Builder
	digits := false
	for _, r := range message {
		switch {
		case unicode.IsDigit(r) && !digits:
			b.WriteByte('N')
			digits = true
		case unicode.IsDigit(r):
		default:
			b.WriteRune(r)
			digits = false
		}
	}
	return b.String()
}
