package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Paging of SPEC §6.2.
const (
	PageLimit = 200 // events asked per page
	maxPages  = 20  // pages per REQ before it counts as saturated
)

// Batch-level failures: the relay answered, but the REQ cannot complete.
var (
	ErrSaturated = errors.New("saturated before EOSE")
	errStalled   = errors.New("page stalled")
	ErrTimeout   = errors.New("relay did not finish the page in time")
)

// closedError is a CLOSED answer from the relay.
type closedError struct{ reason string }

func (e *closedError) Error() string { return "closed by relay: " + e.reason }

// ConnectionError reports whether err means the connection itself failed
// (dropped, unresponsive, refused) rather than one REQ or reconciliation.
func ConnectionError(err error) bool {
	var closed *closedError
	return err != nil && !errors.Is(err, ErrSaturated) && !errors.Is(err, errStalled) &&
		!errors.As(err, &closed) && !IsReconcileRefused(err) && !errors.Is(err, context.Canceled)
}

// FetchStats describe one completed or failed paged REQ.
type FetchStats struct {
	Pages          int
	Events         int   // distinct events handed to onPage
	oldest, newest int64 // created_at range seen, 0 when no events
	// reasked: ids a reconciliation said we lack that the first ask did not
	// bring, asked for once more (FetchIDs); Missing: of those, the ones
	// that did not arrive then either.
	reasked, missing int
}

func (st *FetchStats) add(evs []*nostr.Event) {
	for _, ev := range evs {
		t := int64(ev.CreatedAt)
		widen(&st.oldest, &st.newest, t, t)
	}
	st.Events += len(evs)
}

// widen stretches the range oldest..newest (0 = empty so far) over o..n.
func widen(oldest, newest *int64, o, n int64) {
	if *oldest == 0 || o < *oldest {
		*oldest = o
	}
	*newest = max(*newest, n)
}

func (st *FetchStats) merge(o FetchStats) {
	st.Pages += o.Pages
	st.Events += o.Events
	st.reasked += o.reasked
	st.missing += o.missing
	if o.Events > 0 {
		widen(&st.oldest, &st.newest, o.oldest, o.newest)
	}
}

// FetchIDs fetches the events among ids that match f (what a NIP-77
// reconciliation found missing), handing them to onPage (fetchIDChunks).
// The ids that never came are asked for once more at the end: a relay may
// leave one out of an answer (ngit-grasp's lesson), and a REQ that brought
// none of its ids ends that page. Missing counts those that did not come
// then either.
func (c *Conn) FetchIDs(ctx context.Context, f nostr.Filter, ids []string, onPage func([]*nostr.Event) error) (FetchStats, error) {
	arrived := make(map[string]bool, len(ids))
	noted := func(evs []*nostr.Event) error {
		for _, ev := range evs {
			arrived[ev.ID] = true
		}
		return onPage(evs)
	}
	missing := func(ids []string) []string {
		return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return arrived[id] })
	}
	st, err := c.fetchIDChunks(ctx, f, ids, noted)
	if err != nil {
		return st, err
	}
	again := missing(ids)
	if len(again) == 0 {
		return st, nil
	}
	st.reasked = len(again)
	got, err := c.fetchIDChunks(ctx, f, again, noted)
	st.merge(got)
	st.missing = len(missing(again))
	return st, err
}

// fetchIDChunks fetches the events among ids. Each REQ names a page of the
// ids still missing: no until paging, so events sharing a created_at across
// a relay's page cap are never asked twice, and no page limit, as the ids
// bound the fetch. It ends when every id came or a REQ brought none of
// those it named (the relay no longer holds them).
func (c *Conn) fetchIDChunks(ctx context.Context, f nostr.Filter, ids []string, onPage func([]*nostr.Event) error) (FetchStats, error) {
	var st FetchStats
	left := slices.Clone(ids)
	for len(left) > 0 {
		byID := f
		byID.IDs = left[:min(len(left), PageLimit)]
		byID.Limit = len(byID.IDs)
		evs, err := c.Page(ctx, byID)
		if err != nil {
			return st, err
		}
		st.Pages++
		came := make(map[string]bool, len(evs))
		var fresh []*nostr.Event
		for _, ev := range evs {
			if !came[ev.ID] && slices.Contains(byID.IDs, ev.ID) {
				came[ev.ID] = true
				fresh = append(fresh, ev)
			}
		}
		if len(fresh) == 0 {
			left = left[len(byID.IDs):]
			continue
		}
		if err := onPage(fresh); err != nil {
			return st, err
		}
		st.add(fresh)
		left = slices.DeleteFunc(left, func(id string) bool { return came[id] })
	}
	return st, nil
}

// Page runs one REQ until EOSE and returns its events.
func (c *Conn) Page(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	return c.pageFilters(ctx, nostr.Filters{f})
}

// pageFilters runs one REQ of filters until EOSE and returns its events.
// The REQ waits for room within the connection's Allowance, and for the
// connection's cool-down after a rate limit. One the relay refused for load
// is asked again, up to refusedRetries times: after the cool-down when the
// relay said it is rate-limiting, at once within the lowered allowance when
// other REQs were open, else after a pause (a late NOTICE about an earlier
// REQ).
func (c *Conn) pageFilters(ctx context.Context, filters nostr.Filters) ([]*nostr.Event, error) {
	for attempt := 1; ; attempt++ {
		if err := c.waitCooled(ctx); err != nil {
			return nil, err
		}
		evs, s, err := c.pageOnce(ctx, filters)
		var closed *closedError
		if !errors.As(err, &closed) || !isRefusal(closed.reason) || attempt > refusedRetries {
			return evs, err
		}
		if isRateLimited(closed.reason) {
			c.coolDown()
			continue
		}
		if s != nil && c.refusedForNumber(s) {
			continue
		}
		select {
		case <-time.After(time.Duration(attempt) * refusedPause):
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.ctx.Done():
			return nil, c.err()
		}
	}
}

// pageOnce is one attempt of pageFilters; s is its subscription, nil when
// none was opened.
func (c *Conn) pageOnce(ctx context.Context, filters nostr.Filters) ([]*nostr.Event, *Sub, error) {
	done := make(chan error, 2)
	var evs []*nostr.Event // written by the read loop only until done fires
	signal := func(err error) {
		select {
		case done <- err:
		default:
		}
	}
	s, err := c.subscribeWithin(ctx, filters, Handler{
		Event:  func(ev *nostr.Event) { evs = append(evs, ev) },
		EOSE:   func() { signal(nil) },
		closed: func(reason string) { signal(&closedError{reason: reason}) },
	})
	if err != nil {
		return nil, nil, err
	}
	timer := time.NewTimer(c.opts.pageTimeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-c.ctx.Done():
		err = c.err()
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = ErrTimeout
	}
	s.close()
	if err != nil {
		return nil, s, err
	}
	return evs, s, nil
}

// Fetch pages backwards through f (until = smallest created_at of the
// previous page) and hands each page's new events to onPage. It returns nil
// only after EOSE on an unsaturated final page; after maxPages full pages it
// fails with ErrSaturated (SPEC §6.2, trust sync's batches).
func (c *Conn) Fetch(ctx context.Context, f nostr.Filter, onPage func([]*nostr.Event) error) (FetchStats, error) {
	return c.FetchPages(ctx, f, maxPages, onPage)
}

// FetchPages is Fetch with at most maxPages pages (0 = page until EOSE,
// however long the history). On failure the returned stats' Oldest is where
// a later attempt may resume (until = Oldest): every event of f newer than
// it was handed to onPage.
//
// Relays that cap limit below what we ask: a page shorter than asked is
// complete when the cap is known, from NIP-11 limitation.max_limit (then we
// ask for no more than it) or learned earlier on this connection. Otherwise a
// short, non-empty page is confirmed by one more page: if that page brings
// anything new, the relay capped at the short page's size, which is learned
// for the rest of the connection. An unpublished cap therefore costs one
// extra REQ per non-empty batch, and never loses events.
func (c *Conn) FetchPages(ctx context.Context, f nostr.Filter, maxPages int, onPage func([]*nostr.Event) error) (FetchStats, error) {
	var st FetchStats
	limit := PageLimit
	if c.maxLimit > 0 && c.maxLimit < limit {
		limit = c.maxLimit
	}
	seen := make(map[string]struct{})
	confirming := 0 // size of a short page awaiting confirmation
	for page := 1; ; page++ {
		if maxPages > 0 && page > maxPages {
			return st, ErrSaturated
		}
		pf := f
		pf.Limit = limit
		evs, err := c.Page(ctx, pf)
		if err != nil {
			return st, err
		}
		st.Pages++
		fresh := make([]*nostr.Event, 0, len(evs))
		oldest := int64(-1)
		for _, ev := range evs {
			if t := int64(ev.CreatedAt); oldest < 0 || t < oldest {
				oldest = t
			}
			if _, dup := seen[ev.ID]; !dup {
				seen[ev.ID] = struct{}{}
				fresh = append(fresh, ev)
			}
		}
		if len(fresh) > 0 {
			if err := onPage(fresh); err != nil {
				return st, err
			}
			st.add(fresh)
		}
		if len(f.IDs) > 0 && len(seen) >= len(f.IDs) {
			return st, nil // every id asked for arrived: nothing more can come
		}
		if confirming > 0 {
			if len(fresh) == 0 {
				return st, nil
			}
			c.learnCap(confirming)
			confirming = 0
		}
		if len(evs) == 0 {
			return st, nil
		}
		if short, known := c.shortPage(len(evs), limit); short {
			if known {
				return st, nil
			}
			confirming = len(evs)
		}
		if f.Until != nil && oldest >= int64(*f.Until) {
			return st, fmt.Errorf("%w at created_at %d", errStalled, oldest)
		}
		until := nostr.Timestamp(oldest)
		f.Until = &until
	}
}

// shortPage reports whether n events is less than a full page, and whether
// the relay's cap is known (so a short page really is the end).
func (c *Conn) shortPage(n, limit int) (short, capKnown bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= limit {
		c.honored = true
	}
	full := limit
	if c.learned > 0 && c.learned < full {
		full = c.learned
	}
	return n < full, c.maxLimit > 0 || c.learned > 0 || c.honored
}

func (c *Conn) learnCap(n int) {
	c.mu.Lock()
	if c.learned == 0 || n < c.learned {
		c.learned = n
	}
	c.mu.Unlock()
}
