package reposync

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
)

// load builds the index and the plan from the database at start-up: one
// scan of the announcements, then one of the root events (which need the
// announcements to know which repositories are held).
func load(ctx context.Context, src Store, services []string, bootstrap string, policy dialPolicy, normalize Normalizer) (*index, *plan, error) {
	ix := newIndex(services, normalize)
	p := newPlan(services, bootstrap, policy)
	var changes []change
	collect := func(ev *nostr.Event) error {
		if c, _ := ix.Apply(ev); c != nil {
			changes = append(changes, *c)
		}
		return nil
	}
	if err := src.Scan(ctx, []int{KindAnnouncement}, collect); err != nil {
		return nil, nil, err
	}
	if err := src.Scan(ctx, rootKinds, collect); err != nil {
		return nil, nil, err
	}
	p.Apply(changes) // nothing is connected yet: the deltas are of no use
	return ix, p, nil
}
