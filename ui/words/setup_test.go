package words

import (
	"testing"

	"dtp-personal/engine/status"
)

// The set-up is read from what every snapshot carries, also one decoded
// from a running server's status JSON, which has no settings lists (issue
// 31: `status` asked for a root while one existed).
func TestSetupReadsWhatEverySnapshotCarries(t *testing.T) {
	const root = "5be6446aa8a31c11b3b453bf8dafc9b346ff328d1fa11a0fa02a1e6461f6a9b1"
	name := func(k string) string { return map[string]string{root: "Alice"}[k] }
	s := status.Snapshot{State: status.StateIdle}
	st := SetupOf(s, name)
	if st.Root.Done || st.Relays.Done || st.FirstPass.Done || st.Done() {
		t.Fatalf("an empty snapshot is set up: %+v", st)
	}
	s.Frontier.Roots = []string{root}
	s.Relays = []status.Relay{{URL: "wss://a.example"}, {URL: "wss://b.example"}}
	st = SetupOf(s, name)
	if st.Root.Tick() != "✓ Root: you (Alice)" || st.Relays.Tick() != "✓ 2 relays to sync from" || st.FirstPass.Tick() != "… First sync: not yet" {
		t.Errorf("set up but not synced: %q, %q, %q", st.Root.Tick(), st.Relays.Tick(), st.FirstPass.Tick())
	}
	s.State = status.StateRunning
	if got := SetupOf(s, name).FirstPass.Tick(); got != "… First sync: running" {
		t.Errorf("during the first pass: %q", got)
	}
	s.State, s.LastSync, s.Frontier.Size, s.Heap.Edges = status.StatePartial, 1700000000, 421, 20000
	st = SetupOf(s, name)
	if !st.Done() || st.FirstPass.Tick() != "✓ First sync done: 421 people in your web of trust, 20,000 statements" {
		t.Errorf("after the first pass: %+v", st)
	}
}
