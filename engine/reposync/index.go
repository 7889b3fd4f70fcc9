package reposync

import (
	"slices"
	"sync"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/store"
)

// annKey is an announcement's slot: (pubkey, d).
type annKey struct{ pubkey, d string }

// index is what acceptance asks: the held announcements and root events.
// The ingest pipeline reads it from its verify workers while the commit
// listener updates it, hence the RWMutex.
type index struct {
	normalize Normalizer

	mu       sync.RWMutex
	services []string
	anns     map[annKey]*announcement // every announcement held (listing us, or a maintainer's)
	byD      map[string][]annKey      // d → the announcements of that d
	// held root event → every repository it names, held or not (one that
	// ended keeps its roots for the day its owner lists us again)
	roots  map[eventKey][]repoRef
	byRepo map[repoRef][]eventKey // the reverse of roots
}

// newIndex is an empty index for our service URLs (normalised).
func newIndex(services []string, normalize Normalizer) *index {
	return &index{
		normalize: normalize, services: slices.Clone(services),
		anns: map[annKey]*announcement{}, byD: map[string][]annKey{},
		roots: map[eventKey][]repoRef{}, byRepo: map[repoRef][]eventKey{},
	}
}

// Enabled reports whether the profile is on: it needs a service URL.
func (ix *index) Enabled() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.services) > 0
}

// Services are our service URLs.
func (ix *index) Services() []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return slices.Clone(ix.services)
}

// putAnnouncement records a held announcement (the newer one of its slot).
func (ix *index) putAnnouncement(a *announcement) {
	k := annKey{a.Owner, a.D}
	a.ref = a.Ref()
	if old, ok := ix.anns[k]; ok && !store.Beats(a.CreatedAt, a.ID, old.CreatedAt, old.ID) {
		return
	}
	if _, ok := ix.anns[k]; !ok {
		ix.byD[a.D] = append(ix.byD[a.D], k)
	}
	ix.anns[k] = a
}

func (ix *index) removeAnnouncement(k annKey) {
	if _, ok := ix.anns[k]; !ok {
		return
	}
	delete(ix.anns, k)
	ix.byD[k.d] = slices.DeleteFunc(ix.byD[k.d], func(x annKey) bool { return x == k })
	if len(ix.byD[k.d]) == 0 {
		delete(ix.byD, k.d)
	}
}

// putRoot links a held root event to the repositories it names.
func (ix *index) putRoot(k eventKey, refs []repoRef) {
	for _, r := range refs {
		if !slices.Contains(ix.roots[k], r) {
			ix.roots[k] = append(ix.roots[k], r)
			ix.byRepo[r] = append(ix.byRepo[r], k)
		}
	}
}

// rootHeld reports whether k is a held root event of a repository this
// server keeps: the roots of an ended repository are not. Callers hold mu.
func (ix *index) rootHeld(k eventKey) bool {
	for _, r := range ix.roots[k] {
		if ix.heldRef(string(r)) != nil {
			return true
		}
	}
	return false
}

// maintainerSets are the recursive maintainer sets of the held
// repositories with id d. Callers hold mu.
func (ix *index) maintainerSets(d string) map[repoRef][]string {
	out := map[repoRef][]string{}
	for _, k := range ix.byD[d] {
		if a := ix.held(k.pubkey, d); a != nil {
			set := ix.maintainers(k.pubkey, d)
			slices.Sort(set)
			out[a.Ref()] = set
		}
	}
	return out
}

// held returns the announcement of a repository this server keeps: the
// owner's, listing our service. Callers hold mu.
func (ix *index) held(owner, d string) *announcement {
	a := ix.anns[annKey{owner, d}]
	if a == nil || !a.Lists(ix.services) {
		return nil
	}
	return a
}

// heldRef is held for a reference string.
func (ix *index) heldRef(ref string) *announcement {
	owner, d, ok := parseRef(ref)
	if !ok {
		return nil
	}
	return ix.held(owner, d)
}

// maintainers is the recursive maintainer set of owner's repository d:
// the owner, the maintainers its announcement lists, the maintainers their
// own announcements of d list, and so on. Callers hold mu.
func (ix *index) maintainers(owner, d string) []string {
	set := []string{owner}
	for i := 0; i < len(set); i++ {
		a := ix.anns[annKey{set[i], d}]
		if a == nil {
			continue
		}
		for _, m := range a.Maintainers {
			if !slices.Contains(set, m) {
				set = append(set, m)
			}
		}
	}
	return set
}

// Maintainers is the recursive maintainer set of a repository, sorted.
func (ix *index) Maintainers(ref repoRef) []string {
	owner, d, ok := parseRef(string(ref))
	if !ok {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	set := ix.maintainers(owner, d)
	slices.Sort(set)
	return set
}

// maintainsHeld reports whether pubkey is in the maintainer set of a held
// repository with id d, leaving out the repository owned by skip ("" for
// none); heldAny says whether any such repository is held. Callers hold mu.
func (ix *index) maintainsHeld(pubkey, d, skip string) (maintains, heldAny bool) {
	for _, k := range ix.byD[d] {
		if k.pubkey == skip || ix.held(k.pubkey, d) == nil {
			continue
		}
		heldAny = true
		if slices.Contains(ix.maintainers(k.pubkey, d), pubkey) {
			return true, true
		}
	}
	return false, heldAny
}

// Announcement is the held announcement of ref, if any.
func (ix *index) Announcement(ref repoRef) (announcement, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if a := ix.heldRef(string(ref)); a != nil {
		return *a, true
	}
	return announcement{}, false
}

// Apply updates the index with a committed event and returns what the plan
// must learn from it (nil when nothing) and the dependency keys it
// satisfies (for events kept aside).
func (ix *index) Apply(ev *nostr.Event) (*change, []string) {
	switch {
	case ev.Kind == KindAnnouncement:
		a := parseAnnouncement(ev, ix.normalize)
		c := &change{Announcement: &a}
		ix.mu.Lock()
		before := ix.maintainerSets(a.D)
		ix.putAnnouncement(&a)
		for ref, set := range ix.maintainerSets(a.D) {
			if !slices.Equal(before[ref], set) {
				c.StateOf = append(c.StateOf, ref)
			}
		}
		if ix.held(a.Owner, a.D) != nil {
			c.Roots = slices.Clone(ix.byRepo[a.Ref()])
		}
		ix.mu.Unlock()
		slices.Sort(c.StateOf)
		return c, []string{string(a.Ref()), dKey(a.D)}
	case isRootKind(ev.Kind):
		k, ok := parseEventKey(ev.ID)
		if !ok {
			return nil, nil
		}
		ix.mu.Lock()
		var refs, named []repoRef
		for _, r := range rootRefs(ev) {
			if a := ix.heldRef(string(r)); a != nil {
				r = a.ref // the announcement's copy: one string per repository, not per event
				refs = append(refs, r)
			}
			named = append(named, r)
		}
		ix.putRoot(k, named) // stored, so held once: at start-up, an ended repository's too
		ix.mu.Unlock()
		if len(refs) == 0 {
			return nil, nil
		}
		return &change{Root: ev.ID, RootRefs: refs}, []string{ev.ID}
	}
	return nil, nil
}

// End forgets a repository whose owner published an announcement that no
// longer lists this server; the plan drops its filters. Its root events stay
// indexed but no longer admit anything (rootHeld), until the owner lists
// this server again.
func (ix *index) End(ref repoRef) *change {
	owner, d, ok := parseRef(string(ref))
	if !ok {
		return nil
	}
	ix.mu.Lock()
	ix.removeAnnouncement(annKey{owner, d})
	ix.mu.Unlock()
	return &change{Ended: ref}
}

// dKey is the dependency key "any announcement of repository id d".
func dKey(d string) string { return "d:" + d }
