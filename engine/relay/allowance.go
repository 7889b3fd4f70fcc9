package relay

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// How many REQs we keep open on one connection (live and paging together).
const (
	// defaultMaxSubscriptions is the allowance of a relay that publishes no
	// NIP-11 max_subscriptions and has refused none of ours.
	defaultMaxSubscriptions = 20
	// maxReqsInFlight is the ceiling on the paging REQs run at once on a
	// connection, however many the relay allows (strfry ships 200).
	maxReqsInFlight = 50
	// refusedRetries bounds how often one page is asked again after the
	// relay refused it for load; refusedPause is the wait before the n-th
	// retry of one refused with no other REQ open, times n.
	refusedRetries = 8
	refusedPause   = 500 * time.Millisecond
)

// learnedAllowance is how many REQs a relay was seen to allow at once: it
// refused one for their number (a "too many concurrent REQs" NOTICE or
// CLOSED); 0 = nothing learned. A link shares one with every connection it
// dials, so what a refusal taught is kept with the relay's health and a
// reconnect starts within it, instead of being refused again.
type learnedAllowance struct{ n atomic.Int64 }

// get is the learned allowance, 0 when none.
func (a *learnedAllowance) get() int { return int(a.n.Load()) }

// lower sets the allowance to n when none was learned or n is lower, and
// reports whether it did.
func (a *learnedAllowance) lower(n int) bool {
	for {
		old := a.n.Load()
		if old != 0 && int64(n) >= old {
			return false
		}
		if a.n.CompareAndSwap(old, int64(n)) {
			return true
		}
	}
}

// relayLimits are the NIP-11 limitation figures a connection keeps to; 0 = not
// published.
type relayLimits struct {
	published        bool // the relay's document was read (it may publish no limits)
	maxSubscriptions int
	maxLimit         int
	maxMessageLength int
}

// Limits are the relay's NIP-11 limits read at dial (else Options.Limits).
func (c *Conn) Limits() relayLimits { return c.limits }

// allowance is how many REQs may be open at once on the connection: the
// relay's max_subscriptions, lowered to what it accepted when it refused
// one for their number (a "too many concurrent REQs" NOTICE or CLOSED).
// known is false when neither is known; n is defaultMaxSubscriptions then.
func (c *Conn) allowance() (n int, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.allowanceLocked()
}

func (c *Conn) allowanceLocked() (n int, known bool) {
	n = defaultMaxSubscriptions
	if c.limits.maxSubscriptions > 0 {
		n, known = c.limits.maxSubscriptions, true
	}
	if allowed := c.allowed.get(); allowed > 0 && (allowed < n || !known) {
		n, known = allowed, true
	}
	return n, known
}

// ReqsInFlight is how many paging REQs to run at once on the connection:
// the relay's allowance up to maxReqsInFlight, or fallback (within the
// default allowance) when the relay says nothing.
func (c *Conn) ReqsInFlight(fallback int) int {
	n, known := c.allowance()
	if known {
		return min(n, maxReqsInFlight)
	}
	return min(fallback, n)
}

// liveBudget is how many REQs a live set may keep open: the allowance less
// one left for paging (the history of new filters), at least one.
func (c *Conn) liveBudget() int {
	n, _ := c.allowance()
	return max(1, n-1)
}

// refusedLocked notes that the relay refused s for load when open of our
// REQs were open (s among them): with others open, the refusal is read as
// one for their number, so the allowance drops below open and s may be
// asked again within it. lowered reports a drop: the caller tells
// allowanceLowered once the refused REQs' handlers have run. c.mu is held.
func (c *Conn) refusedLocked(open int, s *Sub) (lowered bool) {
	if open <= 1 {
		return false // alone and refused: not for the number of REQs
	}
	s.tooMany = true
	return c.allowed.lower(open - 1)
}

// allowanceLowered runs the onAllowanceLowered functions.
func (c *Conn) allowanceLowered() {
	c.mu.Lock()
	fs := c.onLowered
	c.mu.Unlock()
	for _, f := range fs {
		go f()
	}
}

// onAllowanceLowered registers f to run (on its own goroutine) whenever the
// allowance drops: a live set then gives back the REQs it holds above it.
func (c *Conn) onAllowanceLowered(f func()) {
	c.mu.Lock()
	c.onLowered = append(c.onLowered, f)
	c.mu.Unlock()
}

// subscribeWithin opens a subscription once fewer REQs than the allowance
// are open, waiting for one to end until ctx or the connection does, or for
// the page timeout: then it gives up with a refusal of its own (live REQs
// may hold the whole allowance of a relay that allows one).
func (c *Conn) subscribeWithin(ctx context.Context, filters nostr.Filters, h Handler) (*Sub, error) {
	timeout := time.NewTimer(c.opts.pageTimeout)
	defer timeout.Stop()
	for {
		c.mu.Lock()
		if n, _ := c.allowanceLocked(); len(c.subs) < n {
			s := c.newSubLocked(filters, h)
			c.mu.Unlock()
			return c.open(s)
		}
		freed := c.freed
		c.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.ctx.Done():
			return nil, c.err()
		case <-timeout.C:
			n, _ := c.allowance()
			return nil, &closedError{reason: fmt.Sprintf("rate-limited: no room for another REQ within the relay's allowance of %d", n)}
		}
	}
}

// refusedForNumber reports whether the relay refused s for the number of
// REQs open, so that it may be asked again within the lowered allowance.
func (c *Conn) refusedForNumber(s *Sub) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return s.tooMany
}
