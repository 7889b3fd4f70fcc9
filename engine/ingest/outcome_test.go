package ingest

import (
	"context"
	"testing"

	"dtp-personal/engine/validation"
)

// TestResultFromOKReadsBackEveryOutcome: a client that sees only the wire
// (the CLI importing into a running server) tallies what the pipeline did.
func TestResultFromOKReadsBackEveryOutcome(t *testing.T) {
	for _, want := range []Result{
		{ID: "a", Outcome: Stored},
		{ID: "b", Outcome: Duplicate, Message: MsgDuplicate},
		{ID: "c", Outcome: Superseded, Message: MsgSuperseded},
		{ID: "d", Outcome: Rejected, Message: "invalid: bad signature"},
		{ID: "e", Outcome: Failed, Message: msgFailed + "disk full"},
	} {
		if got := ResultFromOK(want.ID, want.OK(), want.Message); got != want {
			t.Errorf("%s: read back %+v", want.Outcome, got)
		}
	}
	var tally Tally
	for _, o := range []Outcome{Stored, Duplicate, Superseded, Rejected, Failed} {
		tally.Add(Result{Outcome: o, Message: o.String()})
	}
	if tally.Stored != 1 || tally.Duplicates != 2 || tally.Rejected != 2 || len(tally.FirstErrors) != 2 {
		t.Fatalf("tally %+v", tally)
	}
}

// TestCommittedCarriesTheCheckersParse: listeners get the checker's parse of
// each stored event, so the heap does not parse it again.
func TestCommittedCarriesTheCheckersParse(t *testing.T) {
	p, _ := newPipeline(t, Config{})
	var parsed []validation.Parsed
	p.OnCommit(func(c Committed) { parsed = append(parsed, c.Parsed...) })
	ev := statements(1)[0]
	if r, err := p.SubmitWait(context.Background(), ev, "test"); err != nil || r.Outcome != Stored {
		t.Fatalf("submit: %+v %v", r, err)
	}
	if len(parsed) != 1 {
		t.Fatalf("listeners got %d parsed values, want 1", len(parsed))
	}
	if s := parsed[0].Statement; s == nil || s.ID != ev.ID {
		t.Fatalf("parsed %#v, want the statement of %s", parsed[0], ev.ID)
	}
}
