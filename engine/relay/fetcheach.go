package relay

import (
	"context"
	"fmt"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// FetchEach pages several filters to EOSE together, one REQ per page
// carrying every unfinished filter with one until, and hands each page's
// new events to onPage once. A relay sends an event once per subscription
// however many of its filters match it (NIP-01; strfry keeps a sent set per
// REQ), so an event the filters share (a NIP-22 comment names its root by
// both e and E) crosses the wire about once instead of once per filter.
//
// Which filter's page an event belongs to is found by matching it here: the
// relay's page for a filter is its newest limit events, so a filter matching
// fewer than limit of a page's events is finished. The next page starts at
// the newest of the other filters' page ends, above which every filter is
// complete; a filter whose page reached further sends that stretch again.
// That needs the relay to serve the limit asked: until its page size is
// known on this connection (NIP-11 max_limit, a cap learned, or a full page
// seen), the filters are paged one after another instead.
//
// On failure left holds the filters not finished, each with the until where
// a later attempt resumes: every event of theirs newer than it was handed to
// onPage.
func (c *Conn) FetchEach(ctx context.Context, filters nostr.Filters, onPage func([]*nostr.Event) error) (st FetchStats, left nostr.Filters, err error) {
	limit, known := c.pageSize()
	if !known || len(filters) == 1 {
		return c.fetchInTurn(ctx, filters, onPage)
	}
	open := slices.Clone(filters)
	seen := make(map[string]struct{})
	for len(open) > 0 {
		page := slices.Clone(open)
		for i := range page {
			page[i].Limit = limit
		}
		evs, err := c.pageFilters(ctx, page)
		if err != nil {
			return st, open, err
		}
		st.Pages++
		unique := make([]*nostr.Event, 0, len(evs))
		fresh := make([]*nostr.Event, 0, len(evs))
		inPage := make(map[string]struct{}, len(evs))
		for _, ev := range evs {
			if _, dup := inPage[ev.ID]; dup {
				continue // a relay that does not deduplicate across filters
			}
			inPage[ev.ID] = struct{}{}
			unique = append(unique, ev)
			if _, dup := seen[ev.ID]; !dup {
				seen[ev.ID] = struct{}{}
				fresh = append(fresh, ev)
			}
		}
		if len(fresh) > 0 {
			if err := onPage(fresh); err != nil {
				return st, open, err
			}
			st.add(fresh)
		}
		var next nostr.Filters
		until := int64(-1)
		for _, f := range open {
			var times []int64
			for _, ev := range unique {
				if f.Matches(ev) {
					times = append(times, int64(ev.CreatedAt))
				}
			}
			if len(times) < limit {
				continue // its page was short: its history is in
			}
			slices.Sort(times)
			end := times[len(times)-limit] // the limit-th newest: the oldest of its page
			if f.Until != nil && end >= int64(*f.Until) {
				return st, open, fmt.Errorf("%w at created_at %d", errStalled, end)
			}
			until = max(until, end)
			next = append(next, f)
		}
		ts := nostr.Timestamp(until)
		for i := range next {
			next[i].Until = &ts
		}
		open = next
	}
	return st, nil, nil
}

// fetchInTurn pages each filter alone (FetchPages without a page cap),
// handing on only events an earlier filter did not bring.
func (c *Conn) fetchInTurn(ctx context.Context, filters nostr.Filters, onPage func([]*nostr.Event) error) (FetchStats, nostr.Filters, error) {
	var st FetchStats
	seen := make(map[string]struct{})
	onNew := func(evs []*nostr.Event) error {
		fresh := evs[:0:0]
		for _, ev := range evs {
			if _, dup := seen[ev.ID]; !dup {
				seen[ev.ID] = struct{}{}
				fresh = append(fresh, ev)
			}
		}
		if len(fresh) == 0 {
			return nil
		}
		if err := onPage(fresh); err != nil {
			return err
		}
		st.add(fresh)
		return nil
	}
	for i, f := range filters {
		got, err := c.FetchPages(ctx, f, 0, onNew)
		st.Pages += got.Pages
		if err != nil {
			left := slices.Clone(filters[i:])
			if got.Events > 0 {
				until := nostr.Timestamp(got.oldest)
				left[0].Until = &until
			}
			return st, left, err
		}
	}
	return st, nil, nil
}

// pageSize is the limit a page asks for and whether the relay is known to
// serve it in full.
func (c *Conn) pageSize() (limit int, known bool) {
	limit = PageLimit
	if c.maxLimit > 0 && c.maxLimit < limit {
		limit = c.maxLimit
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learned > 0 && c.learned < limit {
		limit = c.learned
	}
	return limit, c.maxLimit > 0 || c.learned > 0 || c.honored
}
