package reposync

import (
	"slices"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// Keeps reports whether a held event is one this profile keeps now, i.e.
// one of a repository it follows (its acceptance would take it again):
// removing events (prune, delete by filter) must leave those alone. Trust
// kinds are not this profile's.
func (s *Syncer) Keeps(ev *nostr.Event) bool {
	if validation.IsTrustKind(ev.Kind) {
		return false
	}
	return s.index().Admit(ev) == nil
}

// Removed forgets events the store no longer holds (never those Keeps
// keeps): the root events and announcements of repositories this server
// does not follow, which the index still knows for the day their owner
// lists us again.
func (s *Syncer) Removed(evs []*nostr.Event) {
	ix := s.index()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, ev := range evs {
		switch {
		case ev.Kind == KindAnnouncement:
			k := annKey{ev.PubKey, ev.Tags.GetD()}
			if a := ix.anns[k]; a != nil && a.ID == ev.ID {
				ix.removeAnnouncement(k)
			}
		case isRootKind(ev.Kind):
			k, ok := parseEventKey(ev.ID)
			if !ok {
				continue
			}
			for _, r := range ix.roots[k] {
				ix.byRepo[r] = slices.DeleteFunc(ix.byRepo[r], func(x eventKey) bool { return x == k })
				if len(ix.byRepo[r]) == 0 {
					delete(ix.byRepo, r)
				}
			}
			delete(ix.roots, k)
		}
	}
}
