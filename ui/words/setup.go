package words

import (
	"strings"

	"dtp-personal/engine/status"
)

// Step is one step of setting up, done or not, in words.
type Step struct {
	Done bool
	Said string
}

// Setup is how far a new user is: a root, a relay to sync from, and the
// first pass that ran with them. The window's Get-started card ticks these
// off and the command line's `status` says the next one.
type Setup struct {
	Root, Relays, FirstPass Step
}

// SetupOf reads the set-up from a snapshot; name gives a root's display
// name ("" when unknown). It reads the frontier's roots and the relay rows,
// which every snapshot carries (the settings' lists are not part of the
// status JSON a running server sends).
func SetupOf(s status.Snapshot, name func(hexKey string) string) Setup {
	var st Setup
	switch roots := s.Frontier.Roots; len(roots) {
	case 0:
		st.Root.Said = "Root: none yet (your npub, where your web of trust starts)"
	default:
		labels := make([]string, len(roots))
		for i, r := range roots {
			labels[i] = Root(name(r))
		}
		st.Root = Step{Done: true, Said: "Root: " + strings.Join(labels, ", ")}
		if len(roots) > 1 {
			st.Root.Said = "Roots: " + strings.Join(labels, ", ")
		}
	}
	if n := len(s.Relays); n > 0 {
		st.Relays = Step{Done: true, Said: Plural(n, "relay") + " to sync from"}
	} else {
		st.Relays.Said = "Relays: none yet"
	}
	switch {
	case st.Root.Done && st.Relays.Done && s.LastSync != 0:
		st.FirstPass = Step{Done: true, Said: "First sync done: " + People(s.Frontier.Size) + " in your web of trust, " +
			Plural(s.Heap.Edges, "statement")}
	case s.State == status.StateRunning && st.Relays.Done:
		st.FirstPass.Said = "First sync: running"
	case st.Root.Done && st.Relays.Done:
		st.FirstPass.Said = "First sync: not yet"
	default:
		st.FirstPass.Said = "First sync: once there is a root and a relay"
	}
	return st
}

// Done reports whether every step is done.
func (s Setup) Done() bool { return s.Root.Done && s.Relays.Done && s.FirstPass.Done }

// Tick is a step as a line of a checklist: "✓ 2 relays to sync from".
func (s Step) Tick() string {
	if s.Done {
		return "✓ " + s.Said
	}
	return "… " + s.Said
}
