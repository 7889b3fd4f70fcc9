package testutil

import (
	"slices"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// Matching answers a filter over evs the way a relay must (NIP-01), using
// go-nostr's own matcher as the reference: newest first, the filter's limit
// applied ("limit":0 returns nothing) and capped at max when max > 0.
func Matching(evs []*nostr.Event, f nostr.Filter, max int) []*nostr.Event {
	var out []*nostr.Event
	for _, ev := range evs {
		if f.Matches(ev) {
			out = append(out, ev)
		}
	}
	slices.SortFunc(out, NewestFirst)
	limit := len(out)
	if max > 0 {
		limit = min(limit, max)
	}
	if f.Limit > 0 {
		limit = min(limit, f.Limit)
	}
	if f.LimitZero && f.Limit == 0 {
		limit = 0
	}
	return out[:limit]
}

// NewestFirst orders events newest first, ties by id ascending (NIP-01).
func NewestFirst(a, b *nostr.Event) int {
	if a.CreatedAt != b.CreatedAt {
		if a.CreatedAt > b.CreatedAt {
			return -1
		}
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}
