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
	MaxLiveFilters       = 70               // live filters on one connection before they are consolidated
	ReconnectWindow      = 15 * time.Minute // re-read this much before the last good moment (reconnect, consolidation)
	DefaultQueueCap      = 100              // live events queued before back-pressure
	DefaultFiltersPerReq = 10               // relays allow ~20 REQs per connection: pack filters
)

// Group is filters the caller wants served together. The set never looks
// inside them; Label comes back with every event and EOSE they bring.
type Group struct {
	Label   any
	Filters nostr.Filters
}

// LiveOptions configure a LiveSet. Zero values take the defaults.
type LiveOptions struct {
	Clock         clock.Clock   // default: the wall clock
	QueueCap      int           // default DefaultQueueCap
	FiltersPerReq int           // default DefaultFiltersPerReq
	EOSETimeout   time.Duration // longest wait for the EOSE before a consolidation; default 30 s
	// Consolidate returns the caller's whole filter set in as few groups as
	// it can; called when Add would pass MaxLiveFilters. nil = never
	// consolidate.
	Consolidate func() []Group
	// OnRefused is told when the relay refused subscriptions and until when
	// the set leaves it alone.
	OnRefused func(reason string, until time.Time)
	// OnClosed is told when the relay closed a subscription for another
	// reason; the set reopens it after LiveReopen's backoff.
	OnClosed func(reason string)
	// OnReopened is told when subscriptions the relay closed were sent again.
	OnReopened func()
}

func (o LiveOptions) withDefaults() LiveOptions {
	if o.Clock == nil {
		o.Clock = clock.Wall{}
	}
	if o.QueueCap <= 0 {
		o.QueueCap = DefaultQueueCap
	}
	if o.FiltersPerReq <= 0 {
		o.FiltersPerReq = DefaultFiltersPerReq
	}
	if o.EOSETimeout <= 0 {
		o.EOSETimeout = 30 * time.Second
	}
	return o
}

// LiveSet is the live subscriptions of one connection: groups of filters
// packed into few REQs, added incrementally, consolidated past
// MaxLiveFilters, repacked into fewer REQs after a refusal, and delivered
// in arrival order through a bounded queue (see Items).
type LiveSet struct {
	conn     *Conn
	opts     LiveOptions
	items    chan Item
	overflow chan struct{}

	opMu sync.Mutex // one change of the subscriptions at a time

	mu          sync.Mutex
	entries     []*entry      // every group wanted, in order
	reqs        map[*req]bool // REQs open on the relay
	reqLimit    int           // most REQs after a refusal, 0 = no limit known
	coolUntil   time.Time     // refused: nothing is sent before this
	refusals    int64
	lastRefused string
	closedRun   int       // relay closes in a row (each within LiveReopen.Max of the last)
	lastClosed  time.Time // the latest relay close
}

// entry is one wanted group; served once a REQ carrying it reached EOSE.
type entry struct {
	label   any
	filters nostr.Filters
	served  bool
}

// req is one REQ carrying the filters of a few entries.
type req struct {
	sub     *Sub
	entries []*entry
	eosed   bool
	done    chan error // EOSE (nil) or the CLOSED that ended it
}

// NewLiveSet starts an empty set on conn; it ends with the connection.
func NewLiveSet(conn *Conn, opts LiveOptions) *LiveSet {
	opts = opts.withDefaults()
	return &LiveSet{
		conn: conn, opts: opts, reqs: map[*req]bool{},
		items: make(chan Item, opts.QueueCap), overflow: make(chan struct{}, 1),
	}
}

// Add subscribes groups as given (the caller decides each filter's since:
// none fetches history). While the relay is in its refusal cool-down they
// wait for the repack. When the set would pass MaxLiveFilters, Add waits for
// the new REQs' EOSE, then closes everything and resubscribes
// Consolidate's groups from now − ReconnectWindow.
func (s *LiveSet) Add(ctx context.Context, groups []Group) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	added := newEntries(groups)
	s.mu.Lock()
	s.entries = append(s.entries, added...)
	cooling, total := s.coolingLocked(), s.filterCountLocked()
	repack := s.reqLimit > 0 && len(s.reqs)+len(s.pack(added, 0)) > s.reqLimit
	s.mu.Unlock()
	switch {
	case cooling:
		return nil
	case repack:
		return s.resubscribe(s.opts.Clock.Now().Add(-ReconnectWindow).Unix())
	}
	sent, err := s.send(added)
	if err != nil || total <= MaxLiveFilters || s.opts.Consolidate == nil {
		return err
	}
	if refused, err := s.awaitEOSE(ctx, sent); err != nil || refused {
		return err // refused: the cool-down's repack sends them
	}
	return s.replace(newEntries(s.opts.Consolidate()), s.opts.Clock.Now().Add(-ReconnectWindow).Unix())
}

// Replace closes every subscription and subscribes groups as given.
func (s *LiveSet) Replace(groups []Group) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	return s.replace(newEntries(groups), 0)
}

// Resubscribe closes every subscription and opens them again: groups that
// were served (reached EOSE) from since, the others as first given. Use it
// to reopen after back-pressure (since = last good moment − ReconnectWindow).
func (s *LiveSet) Resubscribe(since int64) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	return s.resubscribe(since)
}

// CloseAll closes every subscription; the groups stay wanted (Resubscribe).
func (s *LiveSet) CloseAll() {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.closeAll()
}

// LiveStats describe the set for status.
type LiveStats struct {
	Groups, Filters, Reqs int
	CoolingUntil          time.Time // zero unless the relay refused and the cool-down runs
	Refusals              int64     // refusals seen on this connection
	LastRefusal           string
}

// Stats are the set's current figures.
func (s *LiveSet) Stats() LiveStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := LiveStats{
		Groups: len(s.entries), Filters: s.filterCountLocked(), Reqs: len(s.reqs),
		Refusals: s.refusals, LastRefusal: s.lastRefused,
	}
	if s.coolingLocked() {
		st.CoolingUntil = s.coolUntil
	}
	return st
}

// replace makes entries the wanted set; since > 0 sets it on every filter.
func (s *LiveSet) replace(entries []*entry, since int64) error {
	s.closeAll()
	for _, e := range entries {
		if since > 0 {
			e.filters = withSince(e.filters, since)
		}
	}
	s.mu.Lock()
	s.entries = entries
	cooling := s.coolingLocked()
	s.mu.Unlock()
	if cooling {
		return nil
	}
	_, err := s.send(entries)
	return err
}

// resubscribe reopens every wanted group, served ones from since.
func (s *LiveSet) resubscribe(since int64) error {
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
	return s.replace(entries, 0)
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
		sub.Close()
	}
}

// send packs entries into REQs and opens them.
func (s *LiveSet) send(entries []*entry) ([]*req, error) {
	s.mu.Lock()
	chunks := s.pack(entries, s.filterCountLocked())
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
			Closed: func(reason string) { s.closed(r, reason) },
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

// pack splits entries into REQs of FiltersPerReq filters, fuller when a
// refusal set a REQ limit (total is every filter the set will carry). A
// group's filters never straddle two REQs.
func (s *LiveSet) pack(entries []*entry, total int) [][]*entry {
	per := s.opts.FiltersPerReq
	if s.reqLimit > 0 {
		per = max(per, (total+s.reqLimit-1)/s.reqLimit)
	}
	var chunks [][]*entry
	n := 0
	for _, e := range entries {
		if len(chunks) == 0 || n+len(e.filters) > per {
			chunks = append(chunks, nil)
			n = 0
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], e)
		n += len(e.filters)
	}
	return chunks
}

// awaitEOSE waits until every REQ reached EOSE; refused reports a refusal.
func (s *LiveSet) awaitEOSE(ctx context.Context, reqs []*req) (refused bool, err error) {
	timeout := s.opts.Clock.After(s.opts.EOSETimeout)
	for _, r := range reqs {
		select {
		case err := <-r.done:
			if err != nil && IsRefusal(err.Error()) {
				return true, nil
			}
		case <-timeout:
			return false, ErrTimeout
		case <-ctx.Done():
			return false, ctx.Err()
		case <-s.conn.Done():
			return false, s.conn.Err()
		}
	}
	return false, nil
}

func (s *LiveSet) filterCountLocked() int {
	n := 0
	for _, e := range s.entries {
		n += len(e.filters)
	}
	return n
}

func (s *LiveSet) coolingLocked() bool { return s.opts.Clock.Now().Before(s.coolUntil) }

func newEntries(groups []Group) []*entry {
	out := make([]*entry, len(groups))
	for i, g := range groups {
		out[i] = &entry{label: g.Label, filters: slices.Clone(g.Filters)}
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
