package importer

import (
	"fmt"
	"strings"
	"testing"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/reposync"
)

// The events held for another round are bounded: past the cap a refusal
// for a dependency counts at once and says why; a second copy of a held id
// is a duplicate.
func TestHeldEventsAreBounded(t *testing.T) {
	var rs retries
	refusal := func(i int) ingest.Result {
		return ingest.Result{ID: fmt.Sprintf("%064x", i), Outcome: ingest.Rejected, Message: "blocked: " + reposync.RuleNotAboutRepo}
	}
	for i := range MaxHeld {
		if _, kept := rs.hold(refusal(i), []byte("{}")); !kept {
			t.Fatalf("event %d not held", i)
		}
	}
	if r, kept := rs.hold(refusal(0), []byte("{}")); kept || r.Outcome != ingest.Duplicate {
		t.Fatalf("a second copy of a held id: kept=%v %+v", kept, r)
	}
	r, kept := rs.hold(refusal(MaxHeld), []byte("{}"))
	if kept || r.Outcome != ingest.Rejected || !strings.Contains(r.Message, "not tried again") {
		t.Fatalf("past the cap: kept=%v %+v", kept, r)
	}
	if r, kept := rs.hold(ingest.Result{ID: "x", Outcome: ingest.Rejected, Message: "invalid: bad signature"}, nil); kept || r.Message != "invalid: bad signature" {
		t.Fatalf("another refusal: kept=%v %+v", kept, r)
	}
	if got := len(rs.take()); got != MaxHeld || rs.len() != 0 {
		t.Fatalf("Take gave %d, left %d", got, rs.len())
	}
	var big retries
	if _, kept := big.hold(refusal(1), make([]byte, MaxHeldBytes+1)); kept {
		t.Fatal("a line past the byte cap was held")
	}
}
