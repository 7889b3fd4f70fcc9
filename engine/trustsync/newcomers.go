package trustsync

import (
	"context"
	"iter"
	"slices"
	"sync"
	"time"

	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// Newcomers (SPEC §7): the frontier members no relay has given their
// history yet. Between passes the frontier grows (a root added, a session's
// roots, a new hop, a cap raised, an X account newly hinted); the runner
// fetches exactly what is new within about two seconds, in every strategy,
// and until then answers that reach those members say "not-yet-fetched".

// Families a member's history is fetched in before the member counts as
// fetched: their trust statements and their ratings (claims follow hints,
// and their wait is "claims-pending").
const (
	doneTrust uint8 = 1 << iota
	doneRatings
	doneMember = doneTrust | doneRatings
)

// NewcomerDebounce is how long a burst of commits that may name new X
// accounts or claims is gathered before one fetch (frontier changes are
// already gathered by the frontier's own 1 s debounce).
const NewcomerDebounce = time.Second

// newcomers knows, per frontier member and per discovery subject, whether
// some relay completed a fetch of it: read from the cursors once per key,
// then kept current from every cursor write (watchedStore).
type newcomers struct {
	mu      sync.Mutex
	members map[string]uint8 // frontier member -> families completed on some relay
	// seen: keys a pass found completed in the cursors it read, per
	// family, for a track to take rather than read the cursors again (at
	// 300,000 members, 2 s of a pass with nothing new)
	seen     map[string]uint8
	subjects map[string]bool // X account -> discovery completed on some relay
	pending  []string        // members not yet fetched, sorted; replaced, never changed in place
	// fetchedSince: members were fetched since pending was made, which is
	// then made again when read: repend reads every member, and a first
	// sync saves cursors for a few dozen at a time.
	fetchedSince bool
	// tracked is the frontier's Changed channel as of the last read of its
	// members (nil before the first): once closed, they may be others
	tracked <-chan struct{}
	authors []string // the members as of that read, sorted: pending's order
	// attempted: per family scope, the keys a fetch asked for since the
	// last pass began; a failed one waits for its cursor's retry or the
	// next pass, not for the next change
	attempted map[string]map[string]bool
	busy      chan struct{} // closed when the newcomers fetch running now ends; nil when none runs
	// given: per relay and member, when the REQs that gave the member's
	// trust and ratings in a newcomers fetch began, while a live strategy
	// runs: its session for that relay subscribes them from there instead
	// of fetching their history again (takeGiven)
	given map[string]map[string]givenAt
}

// givenAt is when a member's trust and ratings REQs of a newcomers fetch
// began on one relay (zero: not given).
type givenAt struct{ trust, ratings time.Time }

func newNewcomers() *newcomers {
	return &newcomers{members: map[string]uint8{}, seen: map[string]uint8{}, subjects: map[string]bool{},
		attempted: map[string]map[string]bool{}, given: map[string]map[string]givenAt{}}
}

// begin marks a newcomers fetch running until the returned function is
// called: a live session's resubscription waits for it (takeGiven).
func (n *newcomers) begin() (end func()) {
	n.mu.Lock()
	busy := make(chan struct{})
	n.busy = busy
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		n.busy = nil
		n.mu.Unlock()
		close(busy)
	}
}

// give records that a newcomers fetch on relay completed keys' scope (trust
// or ratings) with REQs begun at.
func (n *newcomers) give(relay, scope string, keys []string, at time.Time) {
	bit := familyBit(scope)
	if bit == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.given[relay] == nil {
		n.given[relay] = map[string]givenAt{}
	}
	for _, k := range keys {
		g := n.given[relay][k]
		if bit == doneTrust {
			g.trust = at
		} else {
			g.ratings = at
		}
		n.given[relay][k] = g
	}
}

// takeGiven is a live session's part of keys, authors it is to follow on
// relay: once no newcomers fetch runs (it waits for one), the keys whose
// trust and ratings a newcomers fetch gave on this relay, and the earliest
// moment those REQs began, from which the session subscribes them; the
// other keys it catches up itself, and a newcomers fetch starting later
// leaves them to it.
func (n *newcomers) takeGiven(ctx context.Context, relay string, keys []string) (given map[string]bool, from time.Time, err error) {
	n.mu.Lock()
	for n.busy != nil {
		busy := n.busy
		n.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, time.Time{}, ctx.Err()
		case <-busy:
		}
		n.mu.Lock()
	}
	defer n.mu.Unlock()
	given = map[string]bool{}
	at := n.given[relay]
	for _, k := range keys {
		g, ok := at[k]
		delete(at, k)
		if ok && !g.trust.IsZero() && !g.ratings.IsZero() {
			given[k] = true
			for _, t := range []time.Time{g.trust, g.ratings} {
				if from.IsZero() || t.Before(from) {
					from = t
				}
			}
			continue
		}
		for _, scope := range []string{trustFamily.scope, ratingsFamily.scope} {
			if n.attempted[scope] == nil {
				n.attempted[scope] = map[string]bool{}
			}
			n.attempted[scope][k] = true
		}
	}
	return given, from, nil
}

func familyBit(scope string) uint8 {
	switch scope {
	case trustFamily.scope:
		return doneTrust
	case ratingsFamily.scope:
		return doneRatings
	}
	return 0
}

// track makes authors (sorted, as normalizeKeys leaves them), the
// frontier's members as of its Changed channel changed, the members: those
// never looked at are read from the cursors of every relay, members that
// left are forgotten. It returns the members not yet fetched.
func (n *newcomers) track(st Store, authors []string, changed <-chan struct{}) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock() // held over the read: a cursor written meanwhile waits, and is not lost
	if len(n.members) == 0 {
		n.members = make(map[string]uint8, len(authors))
	}
	var unknown []string
	for _, a := range authors {
		if _, ok := n.members[a]; ok {
			continue
		}
		if n.seen[a] == doneMember {
			n.members[a] = doneMember
		} else {
			unknown = append(unknown, a)
		}
	}
	clear(n.seen)
	if len(unknown) > 0 {
		done, err := completedOn(st, unknown, trustFamily.scope, ratingsFamily.scope)
		if err != nil {
			return nil, err
		}
		for _, a := range unknown {
			var bits uint8
			if done[trustFamily.scope][a] {
				bits |= doneTrust
			}
			if done[ratingsFamily.scope][a] {
				bits |= doneRatings
			}
			n.members[a] = bits
		}
	}
	if len(n.members) > len(authors) {
		for a := range n.members {
			if _, in := slices.BinarySearch(authors, a); !in {
				delete(n.members, a)
			}
		}
	}
	n.authors, n.tracked = authors, changed
	n.repend()
	return n.pending, nil
}

// trackedAs is pendingNow when the members were tracked from the frontier
// as of changed, and none was forgotten since: tracking it again would read
// nothing new, and at 300,000 members each track took half a second of a
// core, four times in a server's first seconds.
func (n *newcomers) trackedAs(changed <-chan struct{}) ([]string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.tracked == nil || n.tracked != changed {
		return nil, false
	}
	return n.pendingNow(), true
}

// undiscovered are the subjects no relay completed a discovery fetch of.
func (n *newcomers) undiscovered(st Store, subjects []string) ([]string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var unknown []string
	for _, s := range subjects {
		if _, ok := n.subjects[s]; !ok {
			unknown = append(unknown, s)
		}
	}
	if len(unknown) > 0 {
		done, err := completedOn(st, unknown, discoveryFamily.scope)
		if err != nil {
			return nil, err
		}
		for _, s := range unknown {
			n.subjects[s] = done[discoveryFamily.scope][s]
		}
	}
	var out []string
	for _, s := range subjects {
		if !n.subjects[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// completedOn reads which keys have, per scope, a cursor that reached EOSE on
// some configured relay.
func completedOn(st Store, keys []string, scopes ...string) (map[string]map[string]bool, error) {
	relays, err := st.Relays()
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]bool{}
	for _, scope := range scopes {
		if out[scope], err = st.Completed(relays, scope, keys); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// read notes the keys of scope whose cursors a pass found completed (an
// EOSE, or a sweep of today): their history of that family completed on a relay, which the
// next track takes for members it has not looked at (sync --once tracks
// only after its pass, to say what is not yet fetched). Once the members
// were tracked (a server tracks at its start) it notes nothing: a track
// then reads only the few members new since, and this loop over every
// cursor would hold n.mu, which answers wait for, at every pass.
func (n *newcomers) read(scope string, completed iter.Seq[string]) {
	bit := familyBit(scope)
	if bit == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.tracked != nil {
		return
	}
	for k := range completed {
		if _, member := n.members[k]; !member {
			n.seen[k] |= bit // a member's bits follow its cursor writes (saved)
		}
	}
}

// saved notes cursors written: a completed fetch marks its keys fetched.
func (n *newcomers) saved(cs []store.Cursor) {
	n.mu.Lock()
	defer n.mu.Unlock()
	moved := false
	for _, c := range cs {
		if c.LastEoseAt == 0 {
			continue
		}
		if c.Scope == discoveryFamily.scope {
			if _, ok := n.subjects[c.Author]; ok {
				n.subjects[c.Author] = true
			}
			continue
		}
		if bits, ok := n.members[c.Author]; ok && bits|familyBit(c.Scope) != bits {
			n.members[c.Author] = bits | familyBit(c.Scope)
			moved = true
		}
	}
	if moved {
		n.fetchedSince = true
	}
}

// pendingNow is pending, made again first when members were fetched since.
// n.mu is held.
func (n *newcomers) pendingNow() []string {
	if n.fetchedSince {
		n.repend()
	}
	return n.pending
}

// forget drops authors whose cursors were deleted: a return reads them again.
func (n *newcomers) forget(authors []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, a := range authors {
		delete(n.members, a)
		delete(n.seen, a)
		delete(n.attempted[trustFamily.scope], a)
		for _, at := range n.given {
			delete(at, a)
		}
	}
	n.tracked = nil // a member forgotten is read again by the next track
	n.repend()
}

// attempt notes that a fetch asks for keys in scope now.
func (n *newcomers) attempt(scope string, keys []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.attempted[scope] == nil {
		n.attempted[scope] = make(map[string]bool, len(keys))
	}
	for _, k := range keys {
		n.attempted[scope][k] = true
	}
}

// restart forgets the attempts: a pass begins, and asks for everyone.
func (n *newcomers) restart() {
	n.mu.Lock()
	defer n.mu.Unlock()
	clear(n.attempted)
	clear(n.given)
}

// unattempted are the keys no fetch asked for in scope; nil keys: the
// members not yet fetched.
func (n *newcomers) unattempted(scope string, keys []string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if keys == nil {
		keys = n.pendingNow()
	}
	var out []string
	for _, k := range keys {
		if !n.attempted[scope][k] {
			out = append(out, k)
		}
	}
	return out
}

func (n *newcomers) repend() {
	var out []string
	for _, a := range n.authors {
		if bits, ok := n.members[a]; ok && bits != doneMember {
			out = append(out, a)
		}
	}
	n.pending, n.fetchedSince = out, false
}

// current reports whether the members were read from the frontier as it
// is now.
func (n *newcomers) current() bool {
	n.mu.Lock()
	tracked := n.tracked
	n.mu.Unlock()
	if tracked == nil {
		return false
	}
	select {
	case <-tracked:
		return false
	default:
		return true
	}
}

func (n *newcomers) unfetched() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pendingNow()
}

// watchedStore tells the newcomers every cursor write and deletion.
type watchedStore struct {
	Store
	n *newcomers
}

func (s watchedStore) SaveCursors(cs []store.Cursor) error {
	if err := s.Store.SaveCursors(cs); err != nil {
		return err
	}
	s.n.saved(cs)
	return nil
}

func (s watchedStore) DeleteCursorsForAuthors(authors []string) error {
	err := s.Store.DeleteCursorsForAuthors(authors)
	s.n.forget(authors)
	return err
}

// NotYetFetched are the frontier members whose trust statements or ratings
// no relay has given yet (sorted; the caller must not change the slice, and
// a change gives a new one, so that callers may keep what they derived).
// With no relay configured there is none to fetch from: coverage says
// "no-relays" instead.
func (r *Runner) NotYetFetched() []string {
	if !r.HasRelays() {
		return nil
	}
	// read again when the frontier changed since the watcher looked, or no
	// watcher runs: the CLI's resolve, the desktop app before its window let
	// the sync start (engine.Options.SyncAfter)
	if !r.newcomers.current() {
		if _, err := r.trackFrontier(); err != nil {
			r.cfg.Log.Warn("read which frontier members were fetched", "err", err)
		}
	}
	return r.newcomers.unfetched()
}

// HasRelays reports whether any sync relay is configured.
func (r *Runner) HasRelays() bool { return len(r.links.All()) > 0 }

// Nudge says committed events may have named new X accounts or claims to
// fetch; a burst of nudges within NewcomerDebounce is one fetch.
func (r *Runner) Nudge() {
	select {
	case r.nudge <- struct{}{}:
	default:
	}
}

// watchNewcomers follows the frontier's members after each frontier change
// and each burst of nudges, and fetches what is new, until ctx ends. Fetches
// start after the strategy's first pass (which fetches everyone) and wait
// for a running pass to end (it fetches whoever joins during its trust walk).
func (r *Runner) watchNewcomers(ctx context.Context) {
	passed := r.passed
	for {
		changed := r.cfg.Frontier.Changed()
		r.fetchNewcomers(ctx)
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-passed: // the first pass ended
			passed = nil
		case <-r.nudge:
			select {
			case <-ctx.Done():
				return
			case <-changed: // the frontier moved meanwhile: no more waiting
			case <-r.cfg.Clock.After(NewcomerDebounce):
			}
		}
	}
}

// trackFrontier updates which frontier members are not yet fetched.
func (r *Runner) trackFrontier() ([]string, error) {
	changed := r.cfg.Frontier.Changed() // first: a change during the read is seen next time
	if pending, ok := r.newcomers.trackedAs(changed); ok {
		return pending, nil
	}
	return r.newcomers.track(r.cfg.Store, trustFamily.normalizeKeys(r.cfg.Frontier.Authors()), changed)
}

// fetchNewcomers fetches the members not yet fetched (their trust, level by
// level as their trusted people join, then their ratings), the claims
// wanted and the X accounts named but never looked up: only those, from
// every relay its health allows, with the pass machinery (cursors, caps,
// per-relay allowance).
func (r *Runner) fetchNewcomers(ctx context.Context) {
	if _, err := r.trackFrontier(); err != nil {
		r.cfg.Log.Warn("read which frontier members were fetched", "err", err)
		return
	}
	select {
	case <-r.passed:
	default:
		return
	}
	r.passMu.Lock()
	defer r.passMu.Unlock()
	if ctx.Err() != nil || r.holding() {
		return
	}
	// before the members to fetch are chosen: a live session's resubscription
	// either waits for this fetch or has taken its keys already
	defer r.newcomers.begin()()
	if _, err := r.trackFrontier(); err != nil { // again: a pass may have run meanwhile
		r.cfg.Log.Warn("read which frontier members were fetched", "err", err)
		return
	}
	pending := r.newcomers.unattempted(trustFamily.scope, nil)
	fr := r.cfg.Frontier
	subjects, err := r.newcomers.undiscovered(r.cfg.Store, fr.DiscoverySubjects())
	if err != nil {
		r.cfg.Log.Warn("read which X accounts were looked up", "err", err)
		return
	}
	subjects = r.newcomers.unattempted(discoveryFamily.scope, subjects)
	claims := r.newcomers.unattempted(claimsFamily.scope, fr.ClaimCandidates())
	if len(pending) == 0 && len(subjects) == 0 && len(claims) == 0 {
		return
	}
	urls := r.relays()
	if len(urls) == 0 {
		return
	}
	r.setFetching(len(pending))
	p := newPass(r, false)
	r.mu.Lock()
	// the frontier's live sessions then leave what this fetch gives to it
	// (global-continuous subscribes everyone and follows no author)
	p.giving = r.live != nil && !r.live.global
	r.mu.Unlock()
	walked := make(chan struct{})
	released := p.connect(ctx, urls, walked)
	err = p.walkNewcomers(ctx, subjects, claims)
	close(walked)
	released.Wait()
	r.mu.Lock()
	r.st.Fetching = 0
	clear(r.relayProg)
	r.st.Progress = status.Progress{}
	// what a cap cut here is cut until the next pass, as the pass's own cuts
	r.st.EventCaps = addCaps(r.st.EventCaps, p.eventCaps())
	r.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		r.cfg.Log.Warn("fetch of people new to the network failed", "err", err)
	}
}

// walkNewcomers is the pass's walk for the newcomers only.
func (p *pass) walkNewcomers(ctx context.Context, subjects, claims []string) error {
	fr := p.r.cfg.Frontier
	var members []string
	for {
		todo := p.r.newcomers.unattempted(trustFamily.scope, nil)
		if len(todo) == 0 {
			break
		}
		members = append(members, todo...)
		p.r.setFetching(len(members))
		if err := p.fetch(ctx, &trustFamily, todo); err != nil {
			return err
		}
		// their trusted people join now, not after the frontier's debounce
		if err := fr.Refresh(ctx); err != nil {
			return err
		}
		if _, err := p.r.trackFrontier(); err != nil {
			return err
		}
	}
	slices.Sort(members)
	if err := p.fetch(ctx, &ratingsFamily, members); err != nil {
		return err
	}
	if err := p.fetch(ctx, &discoveryFamily, discoveryFamily.normalizeKeys(subjects)); err != nil {
		return err
	}
	claims = claimsFamily.normalizeKeys(append(claims, p.r.newcomers.unattempted(claimsFamily.scope, fr.ClaimCandidates())...))
	if err := p.fetch(ctx, &claimsFamily, claims); err != nil {
		return err
	}
	if len(claims) > 0 && p.anyRelayLive() {
		fr.ClaimsFetched(claims)
		return fr.Refresh(ctx) // a bound account may add hops
	}
	return nil
}

// addCaps adds the cuts of more to caps, by reason.
func addCaps(caps, more []status.Truncation) []status.Truncation {
	out := slices.Clone(caps)
	for _, m := range more {
		if i := slices.IndexFunc(out, func(c status.Truncation) bool { return c.Reason == m.Reason }); i >= 0 {
			out[i].Cut += m.Cut
		} else {
			out = append(out, m)
		}
	}
	return out
}

// holding reports whether the strategy is paused (by the user or a full disk).
func (r *Runner) holding() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.settings.Paused || r.diskFull
}

func (r *Runner) setFetching(n int) {
	r.mu.Lock()
	r.st.Fetching = n
	r.mu.Unlock()
}
