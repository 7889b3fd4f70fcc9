package reposync

import (
	"slices"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
)

// Limits of the events kept aside while what they depend on is not held.
const (
	asideMax = 10000
	asideTTL = 10 * time.Minute
)

// aside keeps events refused only because what they depend on has not
// arrived yet (relays deliver out of order: a maintainer's announcement
// before the owner's, a comment before its root in another REQ). When a
// dependency lands, Wake hands them back for another try. Bounded in count
// and age: past either, the oldest are dropped, and the daily catch-up
// fetches them again.
type aside struct {
	clock clock.Clock
	max   int
	ttl   time.Duration

	mu    sync.Mutex
	byKey map[string][]*asideEvent
	queue []*asideEvent // oldest first
	live  int
}

type asideEvent struct {
	ev     *nostr.Event
	source string
	at     time.Time
	wants  []string
	gone   bool // woken or dropped; its queue entry goes when it reaches the front
}

// newAside keeps at most max events for at most ttl.
func newAside(clock clock.Clock, max int, ttl time.Duration) *aside {
	return &aside{clock: clock, max: max, ttl: ttl, byKey: map[string][]*asideEvent{}}
}

// Keep sets ev aside until one of wants is held. Events from our own pushes
// are not kept (the client heard the refusal and may send again).
func (a *aside) Keep(ev *nostr.Event, source string, wants []string) {
	if len(wants) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expire()
	for a.live >= a.max {
		a.dropOldest()
	}
	e := &asideEvent{ev: ev, source: source, at: a.clock.Now(), wants: wants}
	for _, k := range wants {
		a.byKey[k] = append(a.byKey[k], e)
	}
	a.queue = append(a.queue, e)
	a.live++
}

// Wake returns (and forgets) the events waiting for any of keys.
func (a *aside) Wake(keys []string) (evs []*nostr.Event, sources []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expire()
	for _, k := range keys {
		for _, e := range a.byKey[k] {
			if !e.gone {
				e.gone = true
				a.live--
				evs, sources = append(evs, e.ev), append(sources, e.source)
			}
		}
		delete(a.byKey, k)
	}
	return evs, sources
}

// Len is how many events are kept aside.
func (a *aside) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.live
}

// expire drops events older than ttl and the queue's woken entries.
func (a *aside) expire() {
	cutoff := a.clock.Now().Add(-a.ttl)
	for len(a.queue) > 0 && (a.queue[0].gone || a.queue[0].at.Before(cutoff)) {
		a.dropOldest()
	}
}

// dropOldest removes the queue's first entry from every list it is on.
func (a *aside) dropOldest() {
	e := a.queue[0]
	a.queue[0] = nil
	a.queue = a.queue[1:]
	if !e.gone {
		e.gone = true
		a.live--
	}
	for _, k := range e.wants {
		list := slices.DeleteFunc(a.byKey[k], func(x *asideEvent) bool { return x == e })
		if len(list) == 0 {
			delete(a.byKey, k)
		} else {
			a.byKey[k] = list
		}
	}
}
