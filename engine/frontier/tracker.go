package frontier

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// DefaultDebounce is the wait between the first Notify of a burst and the
// walk it causes (SPEC §3: "about 1 s").
const DefaultDebounce = time.Second

// Roots a question names (RESOLVE's or /api/v1/resolve's roots) are followed
// so their people are fetched, but they are not the user's roots: at most
// MaxQueryRoots of them, the most recently asked, each for QueryRootsKept
// after its last question. They are walked into the frontier's authors and
// left out of its Roots, so no other answer counts their evidence.
const (
	MaxQueryRoots  = 8
	QueryRootsKept = 10 * time.Minute
)

// Config configures a Tracker.
type Config struct {
	Limits   settings.Limits
	Roots    []string      // configured roots, hex
	Debounce time.Duration // 0 = DefaultDebounce
	// OnLeft receives, after a recompute, the authors that left the frontier
	// (sorted): the sync forgets their cursors. Called from the recomputing
	// goroutine; it must not call back into the Tracker's Recompute.
	OnLeft func(pubkeys []string)
	Clock  clock.Clock // debounce, hop windows; nil = the wall clock
}

// Tracker keeps the current frontier of a heap: it recomputes on demand,
// after Notify (debounced) and when a hop's window opens or closes.
type Tracker struct {
	h        *heap.Heap
	debounce time.Duration
	onLeft   func([]string)
	clock    clock.Clock
	notify   chan struct{}
	stale    atomic.Bool // a change waits for its walk: the heap may hold hops Current misses

	walkMu sync.Mutex // serialises recomputes so "left" diffs are consistent

	mu       sync.Mutex
	limits   settings.Limits
	roots    []string
	sessions map[string][]string
	asked    map[string]time.Time // query root -> when it stops being followed
	walked   *Result              // last walk, nil before the first
	current  *Result              // walked, or empty before the first walk
	changed  chan struct{}        // closed when current is replaced
}

// NewTracker returns a tracker with an empty frontier; call Recompute (or
// Run, which starts with one) to walk.
func NewTracker(h *heap.Heap, cfg Config) *Tracker {
	t := &Tracker{
		h:        h,
		debounce: cfg.Debounce,
		onLeft:   cfg.OnLeft,
		clock:    cfg.Clock,
		notify:   make(chan struct{}, 1),
		limits:   cfg.Limits,
		roots:    normalizeRoots(cfg.Roots),
		sessions: make(map[string][]string),
		asked:    make(map[string]time.Time),
		current:  &Result{},
		changed:  make(chan struct{}),
	}
	if t.debounce <= 0 {
		t.debounce = DefaultDebounce
	}
	if t.clock == nil {
		t.clock = clock.Wall{}
	}
	return t
}

// Run recomputes once (unless a walk since the last change exists: the
// engine's start walks before it serves, and a second walk of 300,000
// people is a second of CPU at the start), then after each debounced burst
// of Notify calls and at the next hop window change, until ctx ends.
func (t *Tracker) Run(ctx context.Context) {
	t.mu.Lock()
	walked := t.walked != nil
	t.mu.Unlock()
	if !walked || t.Stale() {
		t.Recompute()
	}
	var fire <-chan time.Time
	wake := t.nextWake()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.notify:
			if fire == nil {
				fire = t.clock.After(t.debounce) // not reset by later notifies: a burst costs one walk
			}
		case <-fire:
			fire = nil
			t.Recompute()
			wake = t.nextWake()
		case <-wake:
			t.Recompute()
			wake = t.nextWake()
		}
	}
}

// nextWake fires when the next hop window opens or closes, or the first
// query root's time ends; nil = none.
func (t *Tracker) nextWake() <-chan time.Time {
	t.mu.Lock()
	next := t.nextChangeLocked()
	t.mu.Unlock()
	if next.IsZero() {
		return nil
	}
	return t.clock.After(max(next.Sub(t.clock.Now()), 0))
}

// nextChangeLocked is when the current frontier may next differ with no
// Notify: a hop window of the walk opens or closes, or the first query
// root's time ends; zero = never. t.mu is held.
func (t *Tracker) nextChangeLocked() time.Time {
	var next time.Time
	if n := t.current.NextChange; n != 0 {
		next = time.Unix(n, 0)
	}
	for _, until := range t.asked {
		if next.IsZero() || until.Before(next) {
			next = until
		}
	}
	return next
}

// Notify says a batch changed hops; the frontier is recomputed after the
// debounce. It never blocks.
func (t *Tracker) Notify() {
	t.stale.Store(true)
	select {
	case t.notify <- struct{}{}:
	default:
	}
}

// Recompute walks now and publishes the result.
func (t *Tracker) Recompute() {
	t.walkMu.Lock()
	defer t.walkMu.Unlock()
	t.stale.Store(false) // a Notify from here on marks the next walk

	t.mu.Lock()
	prev := t.walked
	now := t.clock.Now()
	own := t.allRootsLocked()
	var followed []string // query roots: walked, not published as roots
	for r, until := range t.asked {
		if !now.Before(until) {
			delete(t.asked, r)
		} else if _, in := slices.BinarySearch(own, r); !in {
			followed = append(followed, r)
		}
	}
	p := Params{Roots: slices.Concat(own, followed), Limits: t.limits, Now: now.Unix()}
	t.mu.Unlock()

	var next *Result
	t.h.View(func(v heap.View) {
		if v.LimitReason() != "" {
			p.Frozen = prev // nil before the first walk: nothing to freeze to yet
		}
		next = Walk(v, p)
	})
	if len(followed) > 0 {
		next.Roots = slices.DeleteFunc(next.Roots, func(r string) bool { return slices.Contains(followed, r) })
	}

	// leavers are reported before the new frontier is published, so whoever
	// reacts to the change finds their cursors already gone
	if t.onLeft != nil && prev != nil {
		var left []string
		for _, a := range prev.Authors {
			if !next.contains(a) {
				left = append(left, a.Pubkey)
			}
		}
		if len(left) > 0 {
			slices.Sort(left)
			t.onLeft(left)
		}
	}

	t.mu.Lock()
	t.publishLocked(next)
	t.mu.Unlock()
}

// publishLocked makes r the walked and current frontier and tells whoever
// waits on Changed. t.mu is held.
func (t *Tracker) publishLocked(r *Result) {
	t.walked, t.current = r, r
	close(t.changed)
	t.changed = make(chan struct{})
}

// Refresh walks now unless the last walk holds every change: no Notify
// since, no hop window opened or closed, no query root's time ended. The
// sync refreshes before each step of a pass, and at 100,000 people a walk
// that finds nothing new is half a second of a start's first answer.
func (t *Tracker) Refresh() {
	if !t.upToDate() {
		t.Recompute()
	}
}

func (t *Tracker) upToDate() bool {
	if t.Stale() {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	next := t.nextChangeLocked()
	return t.walked != nil && (next.IsZero() || t.clock.Now().Before(next))
}

// Current is the frontier readers should use.
func (t *Tracker) Current() *Result {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.current
}

// Stale reports whether a change was notified that no walk has taken in
// yet: people the heap already reaches may be missing from Current.
func (t *Tracker) Stale() bool { return t.stale.Load() }

// Changed returns a channel closed at the next change of Current.
func (t *Tracker) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// WithRoots is the frontier with extra roots added for one query. Without
// new roots it is Current; otherwise a walk that is not published.
func (t *Tracker) WithRoots(extra []string) *Result {
	t.mu.Lock()
	cur, last := t.current, t.walked
	roots := t.allRootsLocked()
	limits := t.limits
	t.mu.Unlock()
	extra = normalizeRoots(extra)
	if len(extra) == 0 || !slices.ContainsFunc(extra, func(r string) bool { _, in := slices.BinarySearch(roots, r); return !in }) {
		return cur
	}
	p := Params{Roots: slices.Concat(roots, extra), Limits: limits, Now: t.clock.Now().Unix()}
	var r *Result
	t.h.View(func(v heap.View) {
		if v.LimitReason() != "" {
			p.Frozen = last
		}
		r = Walk(v, p)
	})
	return r
}

// SetRoots replaces the configured roots and schedules a walk.
func (t *Tracker) SetRoots(roots []string) {
	t.mu.Lock()
	t.roots = normalizeRoots(roots)
	t.mu.Unlock()
	t.Notify()
}

// SetLimits replaces the caps and schedules a walk.
func (t *Tracker) SetLimits(l settings.Limits) {
	t.mu.Lock()
	t.limits = l
	t.mu.Unlock()
	t.Notify()
}

// AddSessionRoots registers a client session's roots (replacing any it had);
// they join the frontier until RemoveSession.
func (t *Tracker) AddSessionRoots(id string, roots []string) {
	t.mu.Lock()
	t.sessions[id] = normalizeRoots(roots)
	t.mu.Unlock()
	t.Notify()
}

// AddQueryRoots follows the roots a question names (see MaxQueryRoots): new
// ones join the frontier's authors at the next walk, and each is kept for
// QueryRootsKept after it was last asked; past MaxQueryRoots the least
// recently asked is dropped.
func (t *Tracker) AddQueryRoots(roots []string) {
	roots = normalizeRoots(roots)
	if len(roots) == 0 {
		return
	}
	until := t.clock.Now().Add(QueryRootsKept)
	t.mu.Lock()
	added := false
	for _, r := range roots {
		if _, had := t.asked[r]; !had {
			added = true
		}
		t.asked[r] = until
	}
	for len(t.asked) > MaxQueryRoots {
		var oldest string
		for r, u := range t.asked {
			if oldest == "" || u.Before(t.asked[oldest]) || u.Equal(t.asked[oldest]) && r < oldest {
				oldest = r
			}
		}
		delete(t.asked, oldest)
	}
	t.mu.Unlock()
	if added {
		t.Notify()
	}
}

// RemoveSession drops a session's roots.
func (t *Tracker) RemoveSession(id string) {
	t.mu.Lock()
	_, had := t.sessions[id]
	delete(t.sessions, id)
	t.mu.Unlock()
	if had {
		t.Notify()
	}
}

// Status is the frontier part of the status snapshot.
func (t *Tracker) Status() status.Frontier {
	t.mu.Lock()
	defer t.mu.Unlock()
	var session []string
	for _, rs := range t.sessions {
		session = append(session, rs...)
	}
	slices.Sort(session)
	return status.Frontier{
		Roots:        append([]string{}, t.roots...),
		SessionRoots: append([]string{}, slices.Compact(session)...),
		Size:         t.current.Size(),
		ByDepth:      append([]int{}, t.current.ByDepth...),
		Truncation:   append([]status.Truncation{}, t.current.Truncation...),
	}
}

// allRootsLocked is configured plus session roots, sorted and unique.
// Roots are the configured roots, as walks take them: valid, sorted.
func (t *Tracker) Roots() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.roots)
}

func (t *Tracker) allRootsLocked() []string {
	all := slices.Clone(t.roots)
	for _, rs := range t.sessions {
		all = append(all, rs...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}
