package words

import (
	"testing"

	"dtp-personal/engine/status"
)

// People new to the network (issue 32): the reason says how many wait, and
// the summary says a fetch of them runs.
func TestNotYetFetchedInWords(t *testing.T) {
	s := status.Snapshot{
		Coverage:  status.NotYetFetched(status.NewCoverage(), 12),
		Newcomers: status.Newcomers{Fetching: 12, NotYetFetched: 12},
		Relays:    []status.Relay{{URL: "wss://r"}},
		State:     status.StateComplete,
	}
	if got := FactsOf(s, Clock{}).Reason(status.ReasonNotYetFetched); got != "12 people new to your network not fetched yet" {
		t.Errorf("reason %q", got)
	}
	if got := (Facts{}).Reason(status.ReasonNotYetFetched); got != "people new to your network not fetched yet" {
		t.Errorf("reason without a count %q", got)
	}
	if got := Summary(s, SystemClock()); got != "0 people in your web of trust · 0 statements · fetching 12 people new to your network · last sync: never" {
		t.Errorf("summary %q", got)
	}
}
