package relay

import (
	"context"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// item is what a LiveSet hands its consumer, in arrival order: an event, a
// group's EOSE, or a drain mark (both nil/false) that the consumer answers
// with Done once everything before it is processed.
type item struct {
	label any          // the group's label; nil for a drain mark
	event *nostr.Event // nil for EOSE and drain marks
	live  bool         // the event arrived after its REQ's EOSE
	eose  bool         // the group's stored events are all delivered

	drained chan struct{}
}

// done answers a drain mark; on other items it does nothing.
func (it item) done() {
	if it.drained != nil {
		close(it.drained)
	}
}

// Items is the queue between the socket's read loop and the consumer.
func (s *LiveSet) Items() <-chan item { return s.items }

// overflowed fires when a live event found the queue full. The event is
// lost: the caller closes the subscriptions (CloseAll), lets the consumer
// catch up (Drain) and reopens from what it holds (Resubscribe, or its own
// cursors).
func (s *LiveSet) overflowed() <-chan struct{} { return s.overflow }

// drain waits until the consumer has processed everything queued so far.
func (s *LiveSet) drain(ctx context.Context) {
	done := make(chan struct{})
	select {
	case s.items <- item{drained: done}:
	case <-ctx.Done():
		return
	case <-s.conn.done():
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-s.conn.done():
	}
}

// event runs on the read loop: the event goes out with the first group of
// its REQ that it matches.
func (s *LiveSet) event(r *req, ev *nostr.Event) {
	s.mu.Lock()
	live := r.eosed
	s.mu.Unlock()
	it := item{event: ev, live: live}
	for _, e := range r.entries {
		if e.filters.Match(ev) {
			it.label = e.label
			break
		}
	}
	s.enqueue(it)
}

func (s *LiveSet) eose(r *req) {
	s.mu.Lock()
	r.eosed = true
	for _, e := range r.entries {
		e.served = true
	}
	s.mu.Unlock()
	for _, e := range r.entries {
		s.enqueue(item{label: e.label, eose: true})
	}
	r.finish(nil)
}

// closed runs when the relay ended a REQ: a refusal for the number of REQs
// open (the connection's allowance dropped to what the relay accepted)
// repacks the set within the allowance at once; any other refusal starts
// the cool-down and its groups wait for the repack; any other close reopens
// them after a backoff (the groups are still wanted).
func (s *LiveSet) closed(r *req, reason string) {
	s.mu.Lock()
	delete(s.reqs, r)
	sub := r.sub
	s.mu.Unlock()
	r.finish(&closedError{reason: reason})
	if isRefusal(reason) {
		if sub != nil && s.conn.refusedForNumber(sub) {
			s.mu.Lock()
			s.unsent = true
			s.mu.Unlock()
			go s.fitAllowance()
			return
		}
		s.refused(reason)
		return
	}
	s.reopenLater(r.entries) // before onClosed: a test clock sees the timer once told
	if s.opts.onClosed != nil {
		s.opts.onClosed(reason)
	}
}

// finish records how the REQ's wait ended: the first answer counts.
func (r *req) finish(err error) {
	select {
	case r.done <- err:
	default:
	}
}

// enqueue runs on the read loop. History (before EOSE) waits for room: flow
// control. Live events never wait: a full queue is back-pressure.
func (s *LiveSet) enqueue(it item) {
	if it.live {
		select {
		case s.items <- it:
		default:
			select {
			case s.overflow <- struct{}{}:
			default:
			}
		}
		return
	}
	select {
	case s.items <- it:
	case <-s.conn.done():
	}
}

// refused lowers the REQ limit to half of what the relay accepted, and
// leaves the relay alone for refusalCooldown; then everything is repacked
// into fewer, fuller REQs. Refusals during a cool-down add nothing.
func (s *LiveSet) refused(reason string) {
	s.mu.Lock()
	s.refusals++
	s.lastRefused = reason
	if s.coolingLocked() {
		s.mu.Unlock()
		return
	}
	accepted := 0
	for r := range s.reqs {
		if r.eosed {
			accepted++
		}
	}
	s.reqLimit = max(1, accepted/2)
	wait := s.opts.clock.After(refusalCooldown) // before the cool-down shows, so a test clock can end it
	s.coolUntil = s.opts.clock.Now().Add(refusalCooldown)
	until := s.coolUntil
	s.mu.Unlock()
	if s.opts.onRefused != nil {
		s.opts.onRefused(reason, until)
	}
	go s.afterCooldown(wait)
}

func (s *LiveSet) afterCooldown(wait <-chan time.Time) {
	select {
	case <-wait:
	case <-s.conn.done():
		return
	}
	// a failed write means the connection is ending: its owner sees Done
	if s.Resubscribe(s.opts.clock.Now().Add(-ReconnectWindow).Unix()) == nil && s.opts.onReopened != nil {
		s.opts.onReopened()
	}
}
