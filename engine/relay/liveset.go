package relay

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
)

// Live subscription policy of SPEC §6.5, shared by both sync profiles.
const (
	MaxLiveFilters       = 70               // filters one REQ carries before the caller's set is consolidated
	ReconnectWindow      = 15 * time.Minute // re-read this much before the last good moment (reconnect, consolidation)
	defaultQueueCap      = 100              // live events queued before back-pressure
	defaultFiltersPerReq = 10               // filters per REQ while the connection's liveBudget leaves room
)

// Group is filters the caller wants served together. The set never looks
// inside them; Label comes back with every event and EOSE they bring.
type Group struct {
	Label   any
	Filters nostr.Filters
}

// liveOptions configure a LiveSet. Zero values take the defaults.
type liveOptions struct {
	clock         clock.Clock   // default: the wall clock
	queueCap      int           // default defaultQueueCap
	filtersPerReq int           // default defaultFiltersPerReq
	eoseTimeout   time.Duration // longest wait for the EOSE before a consolidation; default 30 s
	// Consolidate returns the caller's whole filter set in as few groups as
	// it can; called when the set would not fit the connection's liveBudget
	// at MaxLiveFilters per REQ. nil = never consolidate.
	consolidate func() []Group
	// onRefused is told when the relay refused subscriptions and until when
	// the set leaves it alone.
	onRefused func(reason string, until time.Time)
	// onClosed is told when the relay closed a subscription for another
	// reason; the set reopens it after liveReopen's backoff.
	onClosed func(reason string)
	// onReopened is told when subscriptions the relay closed or refused
	// were sent again.
	onReopened func()
}

func (o liveOptions) withDefaults() liveOptions {
	if o.clock == nil {
		o.clock = clock.Wall{}
	}
	if o.queueCap <= 0 {
		o.queueCap = defaultQueueCap
	}
	if o.filtersPerReq <= 0 {
		o.filtersPerReq = defaultFiltersPerReq
	}
	if o.eoseTimeout <= 0 {
		o.eoseTimeout = 30 * time.Second
	}
	return o
}

// LiveSet is the live subscriptions of one connection: groups of filters
// packed into few REQs, added incrementally, never more REQs than the
// connection's liveBudget (repacked into fuller REQs, or consolidated, to
// stay within it), repacked into fewer REQs after a refusal, and delivered
// in arrival order through a bounded queue (see Items).
type LiveSet struct {
	conn     *Conn
	opts     liveOptions
	items    chan item
	overflow chan struct{}

	opMu sync.Mutex // one change of the subscriptions at a time

	mu          sync.Mutex
	entries     []*entry      // every group wanted, in order
	reqs        map[*req]bool // REQs open on the relay
	reqLimit    int           // most REQs after a refusal, 0 = no limit known
	coolUntil   time.Time     // refused: nothing is sent before this
	refusals    int64
	lastRefused string
	closedRun   int       // relay closes in a row (each within liveReopen.Max of the last)
	lastClosed  time.Time // the latest relay close
	unsent      bool      // groups of a REQ refused for the number open wait for fitAllowance
}

// entry is one wanted group; served once a REQ carrying it reached EOSE.
type entry struct {
	label   any
	filters nostr.Filters
	size    int // bytes of the filters in a REQ
	served  bool
}

// filtersSize is how many bytes filters take in a REQ (a since added later
// changes it by a few digits: reqOverhead has room for that).
func filtersSize(filters nostr.Filters) int {
	n := 0
	for _, f := range filters {
		n += len(f.String()) + 1
	}
	return n
}

// reqOverhead is a REQ's bytes besides its filters: the label, a
// subscription id and separators, and a since per filter set later.
const reqOverhead = 256

// req is one REQ carrying the filters of a few entries.
type req struct {
	sub     *Sub
	entries []*entry
	eosed   bool
	done    chan error // EOSE (nil) or the CLOSED that ended it
}

// newLiveSet starts an empty set on conn; it ends with the connection.
func newLiveSet(conn *Conn, opts liveOptions) *LiveSet {
	opts = opts.withDefaults()
	s := &LiveSet{
		conn: conn, opts: opts, reqs: map[*req]bool{},
		items: make(chan item, opts.queueCap), overflow: make(chan struct{}, 1),
	}
	conn.onAllowanceLowered(s.fitAllowance)
	return s
}

// fitAllowance repacks the set into fewer REQs when the connection's
// allowance dropped below what it holds, so history pages find room again,
// or when the relay refused some of its REQs for their number (their
// groups are sent again within the allowance at once, no cool-down). In a
// refusal's cool-down, its repack does it.
func (s *LiveSet) fitAllowance() {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	over := (len(s.reqs) > s.limitLocked() || s.unsent) && !s.coolingLocked()
	if over {
		s.unsent = false
	}
	s.mu.Unlock()
	if over {
		// a failed write means the connection is ending: its owner sees Done
		_ = s.resubscribe(s.opts.clock.Now().Add(-ReconnectWindow).Unix(), 0)
	}
}

// Add subscribes groups as given (the caller decides each filter's since:
// none fetches history). While the relay is in its refusal cool-down they
// wait for the repack. When their REQs would pass the REQ limit, everything
// is closed and sent again in fuller REQs taking half the limit (room for
// the next additions; served groups from now − ReconnectWindow, the others
// as given); when even that would pass MaxLiveFilters per REQ, as
// Consolidate's groups from now − ReconnectWindow.
func (s *LiveSet) Add(_ context.Context, groups []Group) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	added := newEntries(groups)
	s.mu.Lock()
	s.entries = append(s.entries, added...)
	limit := s.limitLocked()
	cooling, total := s.coolingLocked(), s.filterCountLocked()
	fits := len(s.reqs)+len(s.pack(added, 0)) <= limit
	s.mu.Unlock()
	since := s.opts.clock.Now().Add(-ReconnectWindow).Unix()
	within := max(1, limit/2)
	switch {
	case cooling:
		return nil
	case fits:
		_, err := s.send(added, 0)
		return err
	case total > within*MaxLiveFilters && s.opts.consolidate != nil:
		return s.replace(newEntries(s.opts.consolidate()), since)
	}
	return s.resubscribe(since, within)
}

// StepAside runs fn, which asks the relay for history pages, beside the
// set's REQs, or, when they take the connection's whole allowance (a relay
// that allows one subscription), with them closed: they are sent again
// when fn returns, served groups from the moment they stepped aside −
// ReconnectWindow, so the live stream misses nothing and no page waits for
// room that never comes.
func (s *LiveSet) StepAside(fn func() error) error {
	s.opMu.Lock()
	allowance, _ := s.conn.allowance()
	s.mu.Lock()
	aside := len(s.reqs) > 0 && len(s.reqs) >= allowance
	s.mu.Unlock()
	if !aside {
		// beside them: a refusal meanwhile may have to repack them (fitAllowance)
		s.opMu.Unlock()
		return fn()
	}
	defer s.opMu.Unlock()
	since := s.opts.clock.Now().Add(-ReconnectWindow).Unix()
	s.closeAll()
	err := fn()
	if rerr := s.resubscribe(since, 0); err == nil {
		err = rerr
	}
	return err
}

// Replace closes every subscription and subscribes groups as given.
func (s *LiveSet) Replace(groups []Group) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	return s.replace(newEntries(groups), 0)
}

// limitLocked is the most REQs the set may keep open: the connection's
// liveBudget, or fewer after a refusal. s.mu is held.
func (s *LiveSet) limitLocked() int {
	limit := s.conn.liveBudget()
	if s.reqLimit > 0 {
		limit = min(limit, s.reqLimit)
	}
	return limit
}

// Resubscribe closes every subscription and opens them again: groups that
// were served (reached EOSE) from since, the others as first given. Use it
// to reopen after back-pressure (since = last good moment − ReconnectWindow).
func (s *LiveSet) Resubscribe(since int64) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	return s.resubscribe(since, 0)
}

// CloseAll closes every subscription; the groups stay wanted (Resubscribe).
func (s *LiveSet) CloseAll() {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.closeAll()
}

// LiveStats describe the set for status.
type LiveStats struct {
	groups, Filters, Reqs int
	coolingUntil          time.Time // zero unless the relay refused and the cool-down runs
	refusals              int64     // refusals seen on this connection
	lastRefusal           string
}

// stats are the set's current figures.
func (s *LiveSet) stats() LiveStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := LiveStats{
		groups: len(s.entries), Filters: s.filterCountLocked(), Reqs: len(s.reqs),
		refusals: s.refusals, lastRefusal: s.lastRefused,
	}
	if s.coolingLocked() {
		st.coolingUntil = s.coolUntil
	}
	return st
}

// replace makes entries the wanted set, within the REQ limit; since > 0
// sets it on every filter.
func (s *LiveSet) replace(entries []*entry, since int64) error {
	return s.replaceWithin(entries, since, 0)
}

// replaceWithin is replace in at most within REQs (0 = the REQ limit).
func (s *LiveSet) replaceWithin(entries []*entry, since int64, within int) error {
	s.closeAll()
	for _, e := range entries {
		if since > 0 {
			e.filters = withSince(e.filters, since)
		}
	}
	s.mu.Lock()
	s.entries = entries
	cooling := s.coolingLocked()
	if within <= 0 {
		within = s.limitLocked()
	}
	s.mu.Unlock()
	if cooling {
		return nil
	}
	_, err := s.send(entries, within)
	return err
}

// resubscribe reopens every wanted group, served ones from since, in at most
// within REQs (0 = the REQ limit).
func (s *LiveSet) resubscribe(since int64, within int) error {
	s.mu.Lock()
	entries := make([]*entry, len(s.entries))
	for i, e := range s.entries {
		ne := *e
		if e.served {
			ne.filters = withSince(e.filters, since)
		}
		entries[i] = &ne
	}
	s.mu.Unlock()
	return s.replaceWithin(entries, 0, within)
}

func (s *LiveSet) closeAll() {
	s.mu.Lock()
	open := make([]*Sub, 0, len(s.reqs))
	for r := range s.reqs {
		open = append(open, r.sub)
	}
	clear(s.reqs)
	s.mu.Unlock()
	for _, sub := range open {
		sub.close()
	}
}

// send packs entries into REQs (at most within, when > 0) and opens them.
func (s *LiveSet) send(entries []*entry, within int) ([]*req, error) {
	s.mu.Lock()
	chunks := s.pack(entries, within)
	s.mu.Unlock()
	var sent []*req
	for _, chunk := range chunks {
		r := &req{entries: chunk, done: make(chan error, 1)}
		var filters nostr.Filters
		for _, e := range chunk {
			filters = append(filters, e.filters...)
		}
		s.mu.Lock()
		s.reqs[r] = true // before the REQ: its answer may come at once
		s.mu.Unlock()
		sub, err := s.conn.Subscribe(filters, Handler{
			Event:  func(ev *nostr.Event) { s.event(r, ev) },
			EOSE:   func() { s.eose(r) },
			closed: func(reason string) { s.closed(r, reason) },
		})
		if err != nil {
			s.mu.Lock()
			delete(s.reqs, r)
			s.mu.Unlock()
			return sent, err
		}
		s.mu.Lock()
		r.sub = sub
		s.mu.Unlock()
		sent = append(sent, r)
	}
	return sent, nil
}

// pack splits entries into REQs of filtersPerReq filters, fuller when that
// would take more than within REQs (0 = no bound), and never larger than
// the relay accepts (its max_message_length: strfry and ours end the
// connection or refuse the REQ past it, which a frontier of a few thousand
// authors in fuller REQs reached). A group's filters never straddle two
// REQs.
func (s *LiveSet) pack(entries []*entry, within int) [][]*entry {
	per := s.opts.filtersPerReq
	if within > 0 {
		total := 0
		for _, e := range entries {
			total += len(e.filters)
		}
		per = max(per, (total+within-1)/within)
	}
	budget := s.conn.maxMessage - reqOverhead
	var chunks [][]*entry
	n, bytes := 0, 0
	for _, e := range entries {
		size := e.size + reqOverhead/2*len(e.filters)
		if len(chunks) == 0 || n+len(e.filters) > per || bytes+size > budget && n > 0 {
			chunks = append(chunks, nil)
			n, bytes = 0, 0
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], e)
		n += len(e.filters)
		bytes += size
	}
	return chunks
}

func (s *LiveSet) filterCountLocked() int {
	n := 0
	for _, e := range s.entries {
		n += len(e.filters)
	}
	return n
}

func (s *LiveSet) coolingLocked() bool { return s.opts.clock.Now().Before(s.coolUntil) }

func newEntries(groups []Group) []*entry {
	out := make([]*entry, len(groups))
	for i, g := range groups {
		out[i] = &entry{label: g.Label, filters: slices.Clone(g.Filters), size: filtersSize(g.Filters)}
	}
	return out
}

// withSince copies filters with since set on each.
func withSince(filters nostr.Filters, since int64) nostr.Filters {
	out := slices.Clone(filters)
	ts := nostr.Timestamp(max(since, 0))
	for i := range out {
		out[i].Since = &ts
	}
	return out
}
