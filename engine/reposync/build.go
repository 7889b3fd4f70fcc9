package reposync

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
)

// EventSource reads stored events by kind (*store.Store fits).
type EventSource interface {
	Scan(ctx context.Context, kinds []int, fn func(*nostr.Event) error) error
}

// Load builds the index and the plan from the database at start-up: one
// scan of the announcements, then one of the root events (which need the
// announcements to know which repositories are held).
func Load(ctx context.Context, src EventSource, services []string, bootstrap string, normalize Normalizer) (*Index, *Plan, error) {
	ix := NewIndex(services, normalize)
	p := NewPlan(services, bootstrap)
	var changes []Change
	collect := func(ev *nostr.Event) error {
		if c, _ := ix.Apply(ev); c != nil {
			changes = append(changes, *c)
		}
		return nil
	}
	if err := src.Scan(ctx, []int{KindAnnouncement}, collect); err != nil {
		return nil, nil, err
	}
	if err := src.Scan(ctx, RootKinds, collect); err != nil {
		return nil, nil, err
	}
	// nothing is connected yet: the deltas are of no use
	var scratch RelayDelta
	p.fold(changes, func(string) *RelayDelta { scratch = RelayDelta{}; return &scratch })
	return ix, p, nil
}
