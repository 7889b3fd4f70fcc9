package reposync

import (
	"context"
	"sync"

	"dtp-personal/engine/relay"
)

// wants is what one sync relay should carry: its full filter set (what a
// new connection or a consolidation subscribes) and the owed queue, the
// incremental filters whose whole history is still owed, oldest first.
type wants struct {
	mu      sync.Mutex
	full    []layerFilter
	pending []*owed
	shrunk  bool // the full set lost filters the live subscriptions still carry
}

// owed is one window's incremental filters: their whole history (no since)
// is owed whatever the connection's state when they came, and they are
// subscribed live unless the full set of a later connection already is.
type owed struct {
	filters []layerFilter
	live    bool
}

// update queues incremental filters (history without since, then live) and
// records the relay's new full set, used at the next consolidation or
// connection, or at once when shrunk (a repository left the relay: its
// filters must stop bringing events).
func (w *wants) update(incremental, full []layerFilter, shrunk bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.full = full
	w.shrunk = w.shrunk || shrunk
	if len(incremental) > 0 {
		w.pending = append(w.pending, &owed{filters: incremental})
	}
}

// takeShrunk reports (once) whether the full set lost filters since the
// live subscriptions were last replaced by it; then, as subscribingFull,
// it returns the full set, with what is owed live in it.
func (w *wants) takeShrunk() ([]layerFilter, bool) {
	w.mu.Lock()
	shrunk := w.shrunk
	w.shrunk = false
	w.mu.Unlock()
	if !shrunk {
		return nil, false
	}
	return w.subscribingFull(false, 0), true
}

// fullSet is every filter the relay should carry.
func (w *wants) fullSet() []layerFilter {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full
}

// owedNow is how many windows' filters are owed.
func (w *wants) owedNow() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

// subscribingFull is called when a connection has caught up and subscribes
// the full set, which it returns: what is owed is live with it, and a daily
// catch-up also brought the whole history of the first owedBefore windows.
func (w *wants) subscribingFull(daily bool, owedBefore int) []layerFilter {
	w.mu.Lock()
	defer w.mu.Unlock()
	if daily {
		w.pending = w.pending[owedBefore:]
	}
	for _, o := range w.pending {
		o.live = true
	}
	w.shrunk = false // the connection subscribes the full set as it is now
	return w.full
}

// settled returns the full set when nothing is owed.
func (w *wants) settled() ([]layerFilter, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full, len(w.pending) == 0
}

// next is the oldest owed window, nil when none is.
func (w *wants) next() *owed {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	return w.pending[0]
}

// paid takes the oldest owed window off the queue (only the connection's
// goroutine takes windows off).
func (w *wants) paid() {
	w.mu.Lock()
	w.pending = w.pending[1:]
	w.mu.Unlock()
}

// addPending fetches the owed filters' history (the live REQs stepping
// aside for its pages where they take the relay's whole allowance) and
// subscribes those not yet live, in the order they came. Each leaves the queue only once done, so a
// connection that fails meanwhile leaves the rest (and its paging progress)
// to the next.
func (c *repoRelay) addPending(ctx context.Context, lc *relay.LiveConn) error {
	for o := c.wants.next(); o != nil; o = c.wants.next() {
		start := c.s.cfg.Clock.Now()
		byLayer := func(l layer, received, _ int) { c.counts.byLayer[l].Add(int64(received)) }
		if err := lc.Set.StepAside(func() error { return c.fetch(ctx, lc, o.filters, 0, byLayer, nil) }); err != nil {
			return err
		}
		if !o.live {
			if err := lc.Set.Add(ctx, groups(o.filters, start.Add(-relay.ReconnectWindow).Unix())); err != nil {
				return err
			}
		}
		c.wants.paid()
	}
	if full, settled := c.wants.settled(); settled {
		// every root of the full set was asked for: at the last catch-up or in an owed window
		if d := rootsDigest(rootFilters(full)); lc.Link().Health().CoveredRoots != d {
			lc.Link().RootsCovered(d)
		}
	}
	return nil
}
