package ui

import (
	"fmt"
	"slices"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// clock is the time and zone the views say times against.
type clock = words.Clock

// intervalLabel names an interval choice in minutes; 0 is manual.
func intervalLabel(minutes int) string {
	if minutes == 0 {
		return "Manual only"
	}
	return fmt.Sprintf("Every %d min", minutes)
}

// stateLabel is the one-line state for the tray title and tooltip and the
// Status tab, in words that say what happens: paused, error: why,
// syncing 42% — trust pass, live on 3 of 4 relays, partial: why.
func stateLabel(s status.Snapshot, c clock) string {
	facts := words.FactsOf(s, c)
	switch {
	case s.Paused:
		return "paused"
	case s.State == status.StateError:
		return "error" + facts.Suffix(diskFullFirst(s.Coverage.Reasons))
	case s.State == status.StateRunning:
		return "syncing" + progressWords(s.Progress)
	case s.Newcomers.Fetching > 0:
		return words.Fetching(s.Newcomers.Fetching)
	case words.IsLive(s.State):
		return words.Live(s) + facts.PartialSuffix(s.Coverage)
	case s.State == status.StatePartial || s.Coverage.State == status.StatePartial:
		return "partial" + facts.Suffix(s.Coverage.Reasons)
	case s.State == "":
		return "starting"
	}
	return s.State
}

// progressWords is a running pass's progress as counted: ": 12 of 40
// authors (trust pass)", "" before the pass knows its total. A percentage
// would read "0%" while events flow in from the first authors.
func progressWords(p status.Progress) string {
	if p.Total <= 0 {
		return ""
	}
	return fmt.Sprintf(": %s of %s (%s pass)", words.Count(p.Done), words.Plural(p.Total, passKey(p.Pass)), p.Pass)
}

// diskFullFirst is reasons with disk-full leading: the one reason of an
// error the user can act on, which sorting would put behind others.
func diskFullFirst(reasons []string) []string {
	i := slices.Index(reasons, status.ReasonDiskFull)
	if i <= 0 {
		return reasons
	}
	return slices.Concat([]string{status.ReasonDiskFull}, reasons[:i], reasons[i+1:])
}
