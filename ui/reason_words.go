package ui

import (
	"fmt"
	"slices"
	"strings"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// coverageFacts is what a coverage reason's words draw on: the caps that
// cut, the relays (for a failed relay's error and retry) and the claims
// still pending (-1 when unknown).
type coverageFacts struct {
	clock      clock
	truncation []status.Truncation
	relays     []status.Relay
	pending    int
}

// words says a coverage reason (status.Reason…) as a user reads it.
func (f coverageFacts) words(reason string) string {
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
	case status.ReasonClaimsPending:
		if f.pending > 0 {
			return "claims pending for " + plural(f.pending, "account")
		}
		return "identity claims still pending"
	case status.ReasonFrontierTruncated:
		if len(f.truncation) == 0 {
			return "frontier cut by a limit"
		}
		cuts := make([]string, len(f.truncation))
		for i, t := range f.truncation {
			cuts[i] = truncationWords(t)
		}
		return "frontier cut by " + strings.Join(cuts, ", ")
	}
	if url, ok := strings.CutPrefix(reason, status.RelayFailed("")); ok {
		return f.relayFailed(url)
	}
	return reason
}

// heldReasons are the coverage reasons that still hold now: the coverage
// is the last pass's, and a reason the user has since dealt with (a relay
// added, a failed relay removed) must not stay on screen until the next pass.
func heldReasons(s status.Snapshot) []string {
	held := make([]string, 0, len(s.Coverage.Reasons))
	for _, r := range s.Coverage.Reasons {
		switch {
		case r == status.ReasonNoRelays && len(s.Relays) > 0,
			r == status.ReasonNeverSynced && s.LastSync != 0,
			r == status.ReasonSyncRunning && s.State != status.StateRunning:
			continue
		}
		if url, ok := strings.CutPrefix(r, status.RelayFailed("")); ok && !slices.ContainsFunc(s.Relays, func(x status.Relay) bool { return x.URL == url }) {
			continue
		}
		held = append(held, r)
	}
	return held
}

// all is every reason in words, one per line.
func (f coverageFacts) all(reasons []string) string {
	lines := make([]string, len(reasons))
	for i, r := range reasons {
		lines[i] = "• " + f.words(r)
	}
	return strings.Join(lines, "\n")
}

// relayFailed says what went wrong with a relay in words, with when we
// retry; its raw error is in the Relays tab's details and the log.
func (f coverageFacts) relayFailed(url string) string {
	for _, r := range f.relays {
		if trouble := relayTrouble(r, f.clock); r.URL == url && trouble != "" {
			return "relay " + url + ": " + trouble
		}
	}
	return "relay " + url + " failed in the last pass"
}

// truncationWords is one cap and what it left out, in the units the engine
// counts: "maxTotalAuthors (1,234 not followed)", "maxEvents (56 people not
// fully fetched)".
func truncationWords(t status.Truncation) string {
	return fmt.Sprintf("%s (%s)", t.Reason, capLeft(t))
}

// suffix is ": first reason in words (+N more)" for a state line.
func (f coverageFacts) suffix(reasons []string) string {
	switch len(reasons) {
	case 0:
		return ": waiting for the next pass" // the reasons it had no longer hold
	case 1:
		return ": " + f.words(reasons[0])
	}
	return fmt.Sprintf(": %s (+%d more)", f.words(reasons[0]), len(reasons)-1)
}

// partialSuffix is " — partial: why" when cov is partial, else "".
func (f coverageFacts) partialSuffix(cov status.Coverage) string {
	if cov.State != status.StatePartial {
		return ""
	}
	return " — partial" + f.suffix(cov.Reasons)
}

// capCut says in words a cap that cut the walk or a pass, with the cap's
// value and its setting's name ("the walk stopped at 20,000 people
// (maxTotalAuthors)"), and what it left out (capLeft).
func capCut(t status.Truncation, l settings.Limits) (what, left string) {
	left = capLeft(t)
	switch t.Reason {
	case status.ReasonMaxDepth:
		return fmt.Sprintf("the walk stops %s from you (maxDepth)", plural(l.MaxDepth, "hop")), left
	case status.ReasonMaxAuthorsPerLevel:
		return fmt.Sprintf("the walk takes at most %s at each hop (maxAuthorsPerLevel)", people(l.MaxAuthorsPerLevel)), left
	case status.ReasonMaxTotalAuthors:
		return fmt.Sprintf("the walk stopped at %s (maxTotalAuthors)", people(l.MaxTotalAuthors)), left
	case status.ReasonHeapNodeLimit:
		return fmt.Sprintf("the trust graph in memory is full at %s people and subjects (heapNodeLimit)", count(l.HeapNodeLimit)), left
	case status.ReasonHeapEdgeLimit:
		return fmt.Sprintf("the trust graph in memory is full at %s (heapEdgeLimit)", plural(l.HeapEdgeLimit, "statement")), left
	case status.ReasonMaxEvents:
		return fmt.Sprintf("a pass fetches at most %s (maxEvents)", plural(l.MaxEvents, "trust statement")), left
	case status.ReasonMaxEventsPerAuthor:
		return "a pass fetches a share of maxEvents per person (maxEventsPerAuthor)", left
	case status.ReasonMaxRatingEvents:
		return fmt.Sprintf("a pass fetches at most %s (maxRatingEvents)", plural(l.MaxRatingEvents, "rating")), left
	case status.ReasonMaxDiscoveryEvents:
		return fmt.Sprintf("a pass fetches at most %s to find who owns an X account (maxDiscoveryEvents)",
			plural(l.MaxDiscoveryEvents, "statement")), left
	}
	return t.Reason, left
}

// capLeft says what a cap left out: the walk counts the people it did not
// follow, a pass's event caps the people (or X accounts) whose statements
// were not all fetched.
func capLeft(t status.Truncation) string {
	switch t.Reason {
	case status.ReasonMaxDepth, status.ReasonMaxAuthorsPerLevel, status.ReasonMaxTotalAuthors,
		status.ReasonHeapNodeLimit, status.ReasonHeapEdgeLimit:
		return count(t.Cut) + " not followed"
	case status.ReasonMaxEvents, status.ReasonMaxEventsPerAuthor, status.ReasonMaxRatingEvents:
		return people(t.Cut) + " not fully fetched"
	case status.ReasonMaxDiscoveryEvents:
		return plural(t.Cut, "X account") + " not fully searched"
	}
	return count(t.Cut) + " cut"
}
