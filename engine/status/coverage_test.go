package status

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestNewCoverageCompleteWithoutReasons(t *testing.T) {
	c := NewCoverage()
	if c.State != StateComplete || c.Reasons == nil || len(c.Reasons) != 0 {
		t.Fatalf("coverage %+v", c)
	}
	b, _ := json.Marshal(c)
	if string(b) != `{"state":"complete","reasons":[]}` {
		t.Fatalf("json %s", b)
	}
}

func TestNewCoverageDedupesAndSorts(t *testing.T) {
	in := []string{ReasonSyncRunning, RelayFailed("wss://b.example"), ReasonNeverSynced, ReasonSyncRunning, RelayFailed("wss://a.example"), ReasonHeapLimit}
	c := NewCoverage(in...)
	want := []string{ReasonHeapLimit, ReasonNeverSynced, "relay-failed:wss://a.example", "relay-failed:wss://b.example", ReasonSyncRunning}
	if c.State != StatePartial || !slices.Equal(c.Reasons, want) {
		t.Fatalf("coverage %+v, want reasons %v", c, want)
	}
	if in[0] != ReasonSyncRunning {
		t.Fatal("NewCoverage reordered its caller's slice")
	}
}

func TestNewCoverageOneReasonIsPartial(t *testing.T) {
	if c := NewCoverage(ReasonNoRelays); c.State != StatePartial || !slices.Equal(c.Reasons, []string{ReasonNoRelays}) {
		t.Fatalf("coverage %+v", c)
	}
}
