package ui

import (
	"slices"
	"strings"

	"dtp-personal/engine/status"
)

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
