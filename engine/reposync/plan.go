package reposync

import (
	"cmp"
	"maps"
	"slices"

	"dtp-personal/engine/status"
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
// other relays that the dial policy admits, within its caps (assign). The
// bootstrap relay is always a sync relay (for discovery: layer 1 finds
// announcements that list us), with the repositories whose announcements
// name it.
type plan struct {
	services  []string
	bootstrap string
	policy    dialPolicy
	repos     map[repoRef]*followed
	relays    map[string]map[repoRef]struct{}
	refused   map[string]status.RefusedRelay // relays announcements name that are not dialled
}

// followed is one followed repository.
type followed struct {
	listed []string // its announcement's relays that are not ours, sorted
	relays []string // its sync relays: those of listed the policy and caps admit, sorted
	roots  []eventKey
}

// newPlan is an empty plan for our service URLs, bootstrap relay ("" =
// none) and dial policy.
func newPlan(services []string, bootstrap string, policy dialPolicy) *plan {
	p := &plan{services: slices.Clone(services), bootstrap: bootstrap, policy: policy,
		repos: map[repoRef]*followed{}, relays: map[string]map[repoRef]struct{}{}, refused: map[string]status.RefusedRelay{}}
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
	// Shrunk: a repository left this relay; its filters go at once (the
	// live subscriptions are replaced by the full set, repoRelay.Update).
	Shrunk bool
}

func (d *relayDelta) empty() bool {
	return !d.Open && !d.Close && !d.Shrunk && len(d.Refs) == 0 && len(d.Roots) == 0 && len(d.State) == 0
}

// Apply folds a window's changes into the plan and returns, per relay in
// URL order, what its connection must do. Apply(nil) after SetPolicy
// returns what a new dial policy changes.
func (p *plan) Apply(changes []change) []relayDelta {
	before := map[string]map[repoRef]struct{}{}
	for relay, repos := range p.relays {
		before[relay] = maps.Clone(repos)
	}
	fresh := p.fold(changes)
	p.assign()
	deltas := map[string]*relayDelta{}
	delta := func(relay string) *relayDelta {
		if deltas[relay] == nil {
			deltas[relay] = &relayDelta{Relay: relay}
		}
		return deltas[relay]
	}
	for relay, repos := range p.relays {
		was, existed := before[relay]
		d := delta(relay)
		d.Open = !existed
		for _, ref := range slices.Sorted(maps.Keys(repos)) {
			if _, on := was[ref]; !on {
				d.Refs = append(d.Refs, ref)
				d.Roots = append(d.Roots, keyStrings(p.repos[ref].roots)...)
				continue
			}
			for _, id := range fresh.roots[ref] {
				if !slices.Contains(d.Roots, id) {
					d.Roots = append(d.Roots, id)
				}
			}
			if slices.Contains(fresh.restate, ref) && !slices.Contains(d.State, ref) {
				d.State = append(d.State, ref)
			}
		}
		for ref := range was {
			if _, on := repos[ref]; !on {
				d.Shrunk = true
			}
		}
	}
	for relay := range before {
		if _, still := p.relays[relay]; !still {
			delta(relay).Close = true
		}
	}
	out := make([]relayDelta, 0, len(deltas))
	for _, relay := range slices.Sorted(maps.Keys(deltas)) {
		if d := deltas[relay]; !d.empty() {
			out = append(out, *d)
		}
	}
	return out
}

// SetPolicy changes the dial policy; the next Apply assigns relays by it.
func (p *plan) SetPolicy(policy dialPolicy) { p.policy = policy }

// folded is what a window's changes did to repositories already followed:
// root events added (ids), maintainer sets changed.
type folded struct {
	roots   map[repoRef][]string
	restate []repoRef
}

// fold applies changes to the followed repositories and their roots.
func (p *plan) fold(changes []change) folded {
	f := folded{roots: map[repoRef][]string{}}
	for _, c := range changes {
		switch {
		case c.Announcement != nil:
			p.announce(c.Announcement, c.Roots)
			f.restate = append(f.restate, c.StateOf...)
		case c.Ended != "":
			delete(p.repos, c.Ended)
		case c.Root != "":
			p.addRoot(c.Root, c.RootRefs, f.roots)
		}
	}
	return f
}

// announce follows, updates or unfollows a repository from its newest
// announcement; a repository followed again takes back its held roots.
func (p *plan) announce(a *announcement, roots []eventKey) {
	ref := a.Ref()
	if !a.Lists(p.services) {
		delete(p.repos, ref)
		return
	}
	f := p.repos[ref]
	if f == nil {
		f = &followed{roots: roots}
		p.repos[ref] = f
	}
	f.listed = nil
	for _, r := range a.Relays {
		if !slices.Contains(p.services, r) {
			f.listed = append(f.listed, r)
		}
	}
}

func (p *plan) addRoot(id string, refs []repoRef, added map[repoRef][]string) {
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
		added[ref] = append(added[ref], id)
	}
}

// assign gives each followed repository its sync relays: the relays of its
// announcement that the dial policy admits, those most repositories share
// first, at most policy.maxPerRepo of them; of all these, the
// policy.maxRelays most shared are dialled. The bootstrap relay is always
// dialled and counts against neither cap. Every relay named and not dialled
// is kept in refused with the reason.
func (p *plan) assign() {
	shared := map[string]int{} // relay → followed repositories naming it
	for _, f := range p.repos {
		for _, r := range f.listed {
			shared[r]++
		}
	}
	moreShared := func(a, b string) int {
		return cmp.Or(cmp.Compare(shared[b], shared[a]), cmp.Compare(a, b))
	}
	chosen := map[string]bool{}
	perRepo := map[repoRef][]string{}
	refusal := map[string]string{}
	for ref, f := range p.repos {
		var admitted []string
		for _, r := range f.listed {
			if why := p.policy.refuses(r); why != "" && r != p.bootstrap {
				refusal[r] = why
				continue
			}
			admitted = append(admitted, r)
		}
		slices.SortFunc(admitted, moreShared)
		n := 0
		for _, r := range admitted {
			if r != p.bootstrap && p.policy.maxPerRepo > 0 && n == p.policy.maxPerRepo {
				if _, ok := refusal[r]; !ok {
					refusal[r] = RefusedPerRepo
				}
				continue
			}
			if r != p.bootstrap {
				n++
				chosen[r] = true
			}
			perRepo[ref] = append(perRepo[ref], r)
		}
	}
	dialled := map[string]bool{}
	for i, r := range slices.SortedFunc(maps.Keys(chosen), moreShared) {
		if p.policy.maxRelays <= 0 || i < p.policy.maxRelays {
			dialled[r] = true
		} else {
			refusal[r] = RefusedRepoCap
		}
	}
	p.relays = map[string]map[repoRef]struct{}{}
	if p.bootstrap != "" {
		p.relays[p.bootstrap] = map[repoRef]struct{}{}
		dialled[p.bootstrap] = true
	}
	for ref, f := range p.repos {
		f.relays = f.relays[:0]
		for _, r := range perRepo[ref] {
			if !dialled[r] {
				continue
			}
			f.relays = append(f.relays, r)
			if p.relays[r] == nil {
				p.relays[r] = map[repoRef]struct{}{}
			}
			p.relays[r][ref] = struct{}{}
		}
		slices.Sort(f.relays)
	}
	clear(p.refused)
	for r, why := range refusal {
		if !dialled[r] { // one repository's per-repo cap does not refuse what another's takes
			p.refused[r] = status.RefusedRelay{URL: r, Reason: why, Repos: shared[r]}
		}
	}
}

func keyStrings(keys []eventKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	return out
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
	out := keyStrings(f.roots)
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

// Refused lists the relays announcements name that are not dialled, by URL.
func (p *plan) Refused() []status.RefusedRelay {
	out := make([]status.RefusedRelay, 0, len(p.refused))
	for _, url := range slices.Sorted(maps.Keys(p.refused)) {
		out = append(out, p.refused[url])
	}
	return out
}
