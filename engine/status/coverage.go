package status

import "slices"

// Coverage says how complete the local copy is, and why not. Build it with
// NewCoverage.
type Coverage struct {
	State   string   `json:"state"` // "complete" | "partial"
	Reasons []string `json:"reasons"`
	// NotYetFetched counts the frontier members behind the reason
	// "not-yet-fetched": no relay has given their history yet.
	NotYetFetched int `json:"notYetFetched,omitempty"`
}

// Coverage reasons (SPEC §7): why the local copy may miss data.
const (
	ReasonNeverSynced       = "never-synced"
	ReasonNoRelays          = "no-relays"
	ReasonSyncRunning       = "sync-running"
	ReasonFrontierTruncated = "frontier-truncated" // some cap in Truncation cut the frontier or its events
	ReasonClaimsPending     = "claims-pending"
	ReasonHeapLimit         = "heap-limit"
	ReasonDiskFull          = "disk-full" // sync paused until a write succeeds again
	// ReasonNotYetFetched: the frontier holds members (new roots, new hops)
	// whose history no relay has given yet; Coverage.NotYetFetched counts them.
	ReasonNotYetFetched = "not-yet-fetched"
)

// relayFailedPrefix starts the reason of one relay that failed in a pass.
const relayFailedPrefix = "relay-failed:"

// RelayFailed is the coverage reason of a relay that failed in a pass.
func RelayFailed(url string) string { return relayFailedPrefix + url }

// Truncation reasons (SPEC §4, §5): the caps that cut the frontier walk, a
// pass's events, or the heap. Each is the JSON name of its limit, or the
// heap's limit reason.
const (
	ReasonMaxDepth           = "maxDepth"
	ReasonMaxAuthorsPerLevel = "maxAuthorsPerLevel"
	ReasonMaxTotalAuthors    = "maxTotalAuthors"
	ReasonMaxEvents          = "maxEvents"
	// ReasonMaxEventsPerAuthor: authors whose trust statements past
	// max(20, maxEvents / maxTotalAuthors) were left out of a pass.
	ReasonMaxEventsPerAuthor = "maxEventsPerAuthor"
	ReasonMaxRatingEvents    = "maxRatingEvents"
	ReasonMaxDiscoveryEvents = "maxDiscoveryEvents"
	ReasonHeapNodeLimit      = "heap-node-limit"
	ReasonHeapEdgeLimit      = "heap-edge-limit"
)

// NewCoverage is the coverage given by reasons: partial when there is any,
// complete otherwise. Reasons are deduplicated and sorted, so the same facts
// always read the same, and never nil, so JSON shows [].
func NewCoverage(reasons ...string) Coverage {
	rs := slices.Compact(slices.Sorted(slices.Values(reasons)))
	if len(rs) == 0 {
		return Coverage{State: StateComplete, Reasons: []string{}}
	}
	return Coverage{State: StatePartial, Reasons: rs}
}

// NotYetFetched is c with n members not yet fetched added (none: c).
func NotYetFetched(c Coverage, n int) Coverage {
	if n <= 0 {
		return c
	}
	out := NewCoverage(append(slices.Clone(c.Reasons), ReasonNotYetFetched)...)
	out.NotYetFetched = n
	return out
}
