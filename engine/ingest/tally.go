package ingest

// Tally counts the results of an import, the same way whether they came from
// this process's pipeline or over a running server's WebSocket.
type Tally struct {
	Lines, Stored, Duplicates, Rejected int
	FirstErrors                         []string // messages of the first refusals
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
	}
	return (t.Stored+t.Duplicates+t.Rejected)%progressEvery == 0
}
