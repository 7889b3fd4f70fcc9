package reposync

import (
	"maps"
	"slices"
)

// change is one fact the plan learns from the committed stream.
type change struct {
	Announcement *announcement // a stored announcement (the newest of its slot) ...
	Roots        []eventKey    // ... the held root events of its repository, when held ...
	StateOf      []repoRef     // ... and the held repositories whose maintainer set it changed
	Ended        repoRef       // a repository this server stopped keeping
	Root         string        // a stored root event id ...
	RootRefs     []repoRef     // ... and the held repositories it belongs to
}

// plan is the design's two maps: the root events of each followed
// repository, and each sync relay's repositories (whose root events come
// from the first map). A repository is followed while its owner's
// announcement lists our service; its sync relays are the announcement's
// other relays. The bootstrap relay is always a sync relay (for discovery:
// layer 1 finds announcements that list us), with the repositories whose
// announcements name it.
type plan struct {
	services  []string
	bootstrap string
	repos     map[repoRef]*followed
	relays    map[string]map[repoRef]struct{}
}

// followed is one followed repository.
type followed struct {
	relays []string // its sync relays (not ours), sorted
	roots  []eventKey
}

// newPlan is an empty plan for our service URLs and bootstrap relay ("" = none).
func newPlan(services []string, bootstrap string) *plan {
	p := &plan{services: slices.Clone(services), bootstrap: bootstrap,
		repos: map[repoRef]*followed{}, relays: map[string]map[repoRef]struct{}{}}
	if bootstrap != "" {
		p.relays[bootstrap] = map[repoRef]struct{}{}
	}
	return p
}

// relayDelta is what one sync relay's connection must do after a window.
type relayDelta struct {
	Relay string
	Open  bool      // a new sync relay: connect with the full filters
	Close bool      // no repository left (never the bootstrap relay)
	Refs  []repoRef // repositories newly on this relay: incremental layer 1–2 filters
	Roots []string  // root events newly followed here: incremental layer 3 filters
	State []repoRef // repositories whose maintainer set changed: a new state filter
	// Shrunk: a repository left this relay; its filters go at the next
	// consolidation.
	Shrunk bool
}

// Apply folds a window's changes into the plan and returns, per relay in
// URL order, what its connection must do.
func (p *plan) Apply(changes []change) []relayDelta {
	deltas := map[string]*relayDelta{}
	p.fold(changes, func(relay string) *relayDelta {
		d := deltas[relay]
		if d == nil {
			d = &relayDelta{Relay: relay}
			deltas[relay] = d
		}
		return d
	})
	out := make([]relayDelta, 0, len(deltas))
	for _, relay := range slices.Sorted(maps.Keys(deltas)) {
		d := deltas[relay]
		if relay != p.bootstrap && len(p.relays[relay]) == 0 {
			delete(p.relays, relay)
			if d.Open {
				continue // opened and emptied within one window: never connected
			}
			d = &relayDelta{Relay: relay, Close: true}
		}
		out = append(out, *d)
	}
	return out
}

// fold applies changes, telling delta what each relay must do.
func (p *plan) fold(changes []change, delta func(string) *relayDelta) {
	for _, c := range changes {
		switch {
		case c.Announcement != nil:
			p.announce(c.Announcement, c.Roots, delta)
			p.restate(c.StateOf, delta)
		case c.Ended != "":
			p.unfollow(c.Ended, delta)
		case c.Root != "":
			p.addRoot(c.Root, c.RootRefs, delta)
		}
	}
}

// announce follows, updates or unfollows a repository from its newest
// announcement; a repository followed again takes back its held roots.
func (p *plan) announce(a *announcement, roots []eventKey, delta func(string) *relayDelta) {
	ref := a.Ref()
	if !a.Lists(p.services) {
		if _, ok := p.repos[ref]; ok {
			p.unfollow(ref, delta)
		}
		return
	}
	f := p.repos[ref]
	if f == nil {
		f = &followed{roots: roots}
		p.repos[ref] = f
	}
	next := p.syncRelays(a)
	for _, r := range f.relays {
		if !slices.Contains(next, r) {
			p.leave(r, ref, delta)
		}
	}
	for _, r := range next {
		if !slices.Contains(f.relays, r) {
			p.join(r, ref, f, delta)
		}
	}
	f.relays = next
}

// restate asks each relay of the followed repositories in refs for their
// state by their new maintainer sets.
func (p *plan) restate(refs []repoRef, delta func(string) *relayDelta) {
	for _, ref := range refs {
		f := p.repos[ref]
		if f == nil {
			continue
		}
		for _, r := range f.relays {
			if d := delta(r); !slices.Contains(d.State, ref) {
				d.State = append(d.State, ref)
			}
		}
	}
}

// syncRelays are an announcement's relays that are not ours.
func (p *plan) syncRelays(a *announcement) []string {
	var out []string
	for _, r := range a.Relays {
		if !slices.Contains(p.services, r) {
			out = append(out, r)
		}
	}
	return out
}

func (p *plan) join(relay string, ref repoRef, f *followed, delta func(string) *relayDelta) {
	repos, ok := p.relays[relay]
	if !ok {
		repos = map[repoRef]struct{}{}
		p.relays[relay] = repos
		delta(relay).Open = true
	}
	repos[ref] = struct{}{}
	d := delta(relay)
	d.Refs = append(d.Refs, ref)
	for _, k := range f.roots {
		d.Roots = append(d.Roots, k.String())
	}
}

func (p *plan) leave(relay string, ref repoRef, delta func(string) *relayDelta) {
	delete(p.relays[relay], ref)
	delta(relay).Shrunk = true
}

func (p *plan) unfollow(ref repoRef, delta func(string) *relayDelta) {
	f := p.repos[ref]
	if f == nil {
		return
	}
	for _, r := range f.relays {
		p.leave(r, ref, delta)
	}
	delete(p.repos, ref)
}

func (p *plan) addRoot(id string, refs []repoRef, delta func(string) *relayDelta) {
	k, ok := parseEventKey(id)
	if !ok {
		return
	}
	for _, ref := range refs {
		f := p.repos[ref]
		if f == nil || slices.Contains(f.roots, k) {
			continue
		}
		f.roots = append(f.roots, k)
		for _, r := range f.relays {
			d := delta(r)
			if !slices.Contains(d.Roots, id) {
				d.Roots = append(d.Roots, id)
			}
		}
	}
}

// Relays lists the sync relays, sorted.
func (p *plan) Relays() []string { return slices.Sorted(maps.Keys(p.relays)) }

// RelayRepos lists the repositories a relay serves, sorted.
func (p *plan) RelayRepos(relay string) []repoRef {
	return slices.Sorted(maps.Keys(p.relays[relay]))
}

// Repos lists the followed repositories, sorted.
func (p *plan) Repos() []repoRef { return slices.Sorted(maps.Keys(p.repos)) }

// Roots lists a followed repository's root event ids, sorted.
func (p *plan) Roots(ref repoRef) []string {
	f := p.repos[ref]
	if f == nil {
		return nil
	}
	out := make([]string, len(f.roots))
	for i, k := range f.roots {
		out[i] = k.String()
	}
	slices.Sort(out)
	return out
}

// RootCount is the number of (repository, root event) pairs followed.
func (p *plan) RootCount() int {
	n := 0
	for _, f := range p.repos {
		n += len(f.roots)
	}
	return n
}

// RepoRelays lists a followed repository's sync relays.
func (p *plan) RepoRelays(ref repoRef) []string {
	if f := p.repos[ref]; f != nil {
		return slices.Clone(f.relays)
	}
	return nil
}
