package words

import (
	"fmt"
	"strings"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Facts are what the words about coverage, relays and passes draw on: the
// strategy and its schedule, the caps that cut, the relays, and the claims
// still pending (0 when unknown).
type Facts struct {
	Clock      Clock
	Strategy   string
	Interval   int // minutes between passes of the interval strategy; 0 = manual
	Paused     bool
	Running    bool  // a pass is running
	NextSync   int64 // unix seconds of the next scheduled pass, 0 = none
	Truncation []status.Truncation
	Relays     []status.Relay
	Pending    int
	// NotYetFetched: frontier members no relay has given yet (the count of
	// the reason "not-yet-fetched"; 0 when unknown).
	NotYetFetched int
}

// FactsOf are the facts of a status snapshot, said against c.
func FactsOf(s status.Snapshot, c Clock) Facts {
	return Facts{Clock: c, Strategy: s.Strategy, Interval: s.IntervalMinutes, Paused: s.Paused,
		Running: s.State == status.StateRunning, NextSync: s.NextSync, Truncation: s.Frontier.Truncation, Relays: s.Relays,
		NotYetFetched: s.Coverage.NotYetFetched}
}

// Fetching says the people new to the network being fetched between
// passes: "fetching 12 people new to your network".
func Fetching(n int) string {
	return "fetching " + People(n) + " new to your network"
}

// Reason says a coverage reason (status.Reason…) as a person reads it.
func (f Facts) Reason(reason string) string {
	switch reason {
	case status.ReasonNeverSynced:
		return "never synced yet"
	case status.ReasonNoRelays:
		return "no sync relays configured"
	case status.ReasonSyncRunning:
		return "a sync pass is running"
	case status.ReasonDiskFull:
		return "disk full"
	case status.ReasonHeapLimit:
		return "the trust graph reached its memory limit"
	case status.ReasonNotYetFetched:
		if f.NotYetFetched > 0 {
			return People(f.NotYetFetched) + " new to your network not fetched yet"
		}
		return "people new to your network not fetched yet"
	case status.ReasonClaimsPending:
		if f.Pending > 0 {
			return "claims pending for " + Plural(f.Pending, "account")
		}
		return "identity claims still pending"
	case status.ReasonFrontierTruncated:
		if len(f.Truncation) == 0 {
			return "your network cut by a limit"
		}
		cuts := make([]string, len(f.Truncation))
		for i, t := range f.Truncation {
			cuts[i] = Truncation(t)
		}
		return "your network cut by " + strings.Join(cuts, ", ")
	}
	if url, ok := strings.CutPrefix(reason, status.RelayFailed("")); ok {
		return f.relayFailed(url)
	}
	return reason
}

// Reasons is every reason in words, one per line.
func (f Facts) Reasons(reasons []string) string {
	lines := make([]string, len(reasons))
	for i, r := range reasons {
		lines[i] = "• " + f.Reason(r)
	}
	return strings.Join(lines, "\n")
}

// Suffix is ": first reason in words (+N more)" for a state line.
func (f Facts) Suffix(reasons []string) string {
	switch len(reasons) {
	case 0:
		return ": waiting for the next pass" // the reasons it had no longer hold
	case 1:
		return ": " + f.Reason(reasons[0])
	}
	return fmt.Sprintf(": %s (+%d more)", f.Reason(reasons[0]), len(reasons)-1)
}

// PartialSuffix is " — partial: why" when cov is partial, else "".
func (f Facts) PartialSuffix(cov status.Coverage) string {
	if cov.State != status.StatePartial {
		return ""
	}
	return " — partial" + f.Suffix(cov.Reasons)
}

// relayFailed says what went wrong with a relay, with when it is retried;
// its raw error is in the Relays tab's details, `status --json` and the log.
func (f Facts) relayFailed(url string) string {
	for _, r := range f.Relays {
		if trouble := f.RelayTrouble(r); r.URL == url && trouble != "" {
			return "relay " + url + ": " + trouble
		}
	}
	return "relay " + url + " failed in the last pass"
}

// Truncation is one cap and what it left out, in the units the engine
// counts: "maxTotalAuthors (1,234 not followed)", "maxEvents (56 people not
// fully fetched)".
func Truncation(t status.Truncation) string {
	return fmt.Sprintf("%s (%s)", t.Reason, CapLeft(t))
}

// CapCut says in words a cap that cut the walk or a pass, with the cap's
// value and its setting's name ("the walk stopped at 20,000 people
// (maxTotalAuthors)"), and what it left out (CapLeft).
func CapCut(t status.Truncation, l settings.Limits) (what, left string) {
	left = CapLeft(t)
	switch t.Reason {
	case status.ReasonMaxDepth:
		return fmt.Sprintf("the walk stops %s from you (maxDepth)", Plural(l.MaxDepth, "hop")), left
	case status.ReasonMaxAuthorsPerLevel:
		return fmt.Sprintf("the walk takes at most %s at each hop (maxAuthorsPerLevel)", People(l.MaxAuthorsPerLevel)), left
	case status.ReasonMaxTotalAuthors:
		return fmt.Sprintf("the walk stopped at %s (maxTotalAuthors)", People(l.MaxTotalAuthors)), left
	case status.ReasonHeapNodeLimit:
		return fmt.Sprintf("the trust graph in memory is full at %s people and subjects (heapNodeLimit)", Count(l.HeapNodeLimit)), left
	case status.ReasonHeapEdgeLimit:
		return fmt.Sprintf("the trust graph in memory is full at %s (heapEdgeLimit)", Plural(l.HeapEdgeLimit, "statement")), left
	case status.ReasonMaxEvents:
		return fmt.Sprintf("a pass fetches at most %s (maxEvents)", Plural(l.MaxEvents, "trust statement")), left
	case status.ReasonMaxEventsPerAuthor:
		return "a pass fetches a share of maxEvents per person (maxEventsPerAuthor)", left
	case status.ReasonMaxRatingEvents:
		return fmt.Sprintf("a pass fetches at most %s (maxRatingEvents)", Plural(l.MaxRatingEvents, "rating")), left
	case status.ReasonMaxDiscoveryEvents:
		return fmt.Sprintf("a pass fetches at most %s to find who owns an X account (maxDiscoveryEvents)",
			Plural(l.MaxDiscoveryEvents, "statement")), left
	}
	return t.Reason, left
}

// CapLeft says what a cap left out: the walk counts the people it did not
// follow, a pass's event caps the people (or X accounts) whose statements
// were not all fetched.
func CapLeft(t status.Truncation) string {
	switch t.Reason {
	case status.ReasonMaxDepth, status.ReasonMaxAuthorsPerLevel, status.ReasonMaxTotalAuthors,
		status.ReasonHeapNodeLimit, status.ReasonHeapEdgeLimit:
		return Count(t.Cut) + " not followed"
	case status.ReasonMaxEvents, status.ReasonMaxEventsPerAuthor, status.ReasonMaxRatingEvents:
		return People(t.Cut) + " not fully fetched"
	case status.ReasonMaxDiscoveryEvents:
		return Plural(t.Cut, "X account") + " not fully searched"
	}
	return Count(t.Cut) + " cut"
}

// Summary is the one line a person reads first: "70 people in your web of
// trust · 275 statements · live on 1 of 2 relays · updated 5 s ago".
func Summary(s status.Snapshot, c Clock) string {
	doing := s.Coverage.State
	switch {
	case len(s.Relays) == 0:
		doing = "no relays yet"
	case s.Paused:
		doing = "paused"
	case s.State == status.StateError:
		doing = "error"
	case s.State == status.StateRunning:
		doing = "syncing"
	case s.Newcomers.Fetching > 0:
		doing = Fetching(s.Newcomers.Fetching)
	case IsLive(s.State):
		doing = Live(s)
	}
	updated := "last sync: never"
	if s.LastSync != 0 {
		updated = "updated " + c.Relative(s.LastSync, "")
	}
	return strings.Join([]string{People(s.Frontier.Size) + " in your web of trust", Plural(s.Heap.Edges, "statement"), doing, updated}, " · ")
}

// IsLive reports whether a state is one of live sync's: live, connecting,
// reconnecting.
func IsLive(state string) bool {
	return state == status.StateLive || state == status.StateConnecting || state == status.StateReconnecting
}

// Live says how many sync relays a live subscription holds.
func Live(s status.Snapshot) string {
	connected := 0
	for _, r := range s.Relays {
		if r.Connected {
			connected++
		}
	}
	if s.State != status.StateLive {
		return fmt.Sprintf("%s (%d of %d relays up)", s.State, connected, len(s.Relays))
	}
	return fmt.Sprintf("live on %d of %d relays", connected, len(s.Relays))
}

// Next says when the next pass runs, never as a time that has passed: a
// running pass schedules the next one when it ends.
func (f Facts) Next() string {
	switch {
	case f.Paused:
		return "once sync is resumed"
	case f.Running && f.Strategy == settings.FrontierInterval && f.Interval > 0:
		return fmt.Sprintf("%d min after this pass ends", f.Interval)
	case f.Running:
		return "scheduled when this pass ends"
	case f.NextSync == 0:
		return "not scheduled"
	case f.NextSync <= f.Clock.Now().Unix():
		return "now"
	}
	return f.Clock.Relative(f.NextSync, "") + " (" + f.Clock.At(f.NextSync) + ")"
}
