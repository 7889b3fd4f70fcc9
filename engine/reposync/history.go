package reposync

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/store"
)

// paging is how far each group of filters' history was paged by attempts
// that did not finish (the connection dropped, the relay failed a page), so
// the next attempt goes on from there instead of starting again from the
// newest event: a history longer than one connection lasts still completes.
type paging struct {
	mu       sync.Mutex
	progress map[string]progress // by progressKey
}

type progress struct {
	started int64         // unix time the paging began: what is newer is asked again from started − 15 min
	left    nostr.Filters // the filters not finished, each with the until to go on from; none = all in
}

func (pg *paging) get(key string) (progress, bool) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	p, ok := pg.progress[key]
	return p, ok
}

func (pg *paging) save(key string, p progress) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.progress == nil {
		pg.progress = map[string]progress{}
	}
	pg.progress[key] = p
}

// done forgets the progress of groups whose history is all in.
func (pg *paging) done(groups []layerGroup) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	for _, g := range groups {
		delete(pg.progress, progressKey(g.filters))
	}
}

// clear forgets every group's progress: a full catch-up brought every
// filter's whole history, so what other sets reached is moot.
func (pg *paging) clear() {
	pg.mu.Lock()
	clear(pg.progress)
	pg.mu.Unlock()
}

// progressKey names a group of filters across attempts.
func progressKey(filters nostr.Filters) string { return filters.String() }

// fetch pages through each filter's history since since (0 = all) to EOSE
// and ingests it, counting the events in count's counter for their layer. A
// whole history of which we hold part is reconciled with NIP-77 instead,
// when the relay does it: only the events we lack are fetched. refresh, when
// not nil, gathers what NIP-77 did. The filters of one layer over the same
// references are paged together (relay.FetchEach), so an event they share
// comes once. An attempt that fails leaves each group's progress for the
// next attempt at the same filters, which goes on from there.
func (c *repoRelay) fetch(ctx context.Context, lc *relay.LiveConn, filters []layerFilter, since int64, count func(layer) *atomic.Int64, refresh *relay.RefreshTally) error {
	groups := sameReferences(filters, since)
	for _, g := range groups {
		ingest := func(evs []*nostr.Event) error {
			count(g.layer).Add(int64(len(evs)))
			return lc.Ingest(ctx, evs)
		}
		if err := c.fetchGroup(ctx, lc, g.filters, ingest, refresh); err != nil {
			return err
		}
	}
	c.paged.done(groups)
	return nil
}

// layerGroup is filters of one layer fetched together.
type layerGroup struct {
	layer   layer
	filters nostr.Filters
}

// sameReferences groups filters, each with since > 0 set: consecutive
// filters of layer 2 or 3 over the same references (#a/#A/#q, #e/#E/#q)
// form one group.
func sameReferences(filters []layerFilter, since int64) []layerGroup {
	var out []layerGroup
	for i, lf := range filters {
		f := lf.Filter
		if since > 0 {
			f.Since = timestamp(since)
		}
		if i > 0 && lf.Layer != layerAnnouncements && lf.Layer == filters[i-1].Layer && slices.Equal(references(lf.Filter), references(filters[i-1].Filter)) {
			last := &out[len(out)-1]
			last.filters = append(last.filters, f)
			continue
		}
		out = append(out, layerGroup{lf.Layer, nostr.Filters{f}})
	}
	return out
}

// references are the values of a layer 2 or 3 filter's one tag.
func references(f nostr.Filter) []string {
	for _, values := range f.Tags {
		return values
	}
	return nil
}

// fetchGroup fetches the history of a group of filters, going on from the
// progress an earlier attempt left: first what is newer than that attempt's
// start, then what it had not reached.
func (c *repoRelay) fetchGroup(ctx context.Context, lc *relay.LiveConn, filters nostr.Filters, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) error {
	key := progressKey(filters)
	p, resuming := c.paged.get(key)
	now := c.s.cfg.Clock.Now().Unix()
	if filters[0].Since == nil && (!resuming || len(p.left) > 0) {
		// NIP-77 finds what we lack of each whole history, wherever an
		// earlier attempt stopped
		paged, err := c.reconcileEach(ctx, lc, filters, ingest, refresh)
		if err != nil {
			return err
		}
		if len(paged) == 0 {
			c.paged.save(key, progress{started: now})
			return nil
		}
		if !resuming {
			filters = paged
		}
	}
	if resuming {
		since := p.started - int64(relay.ReconnectWindow/time.Second)
		newer := slices.Clone(filters)
		for i := range newer {
			if newer[i].Since == nil || int64(*newer[i].Since) < since {
				newer[i].Since = timestamp(since)
			}
		}
		st, _, err := lc.FetchEach(ctx, newer, ingest)
		lc.Link().Fetched(st)
		if err != nil {
			return err
		}
		p.started = now
		c.paged.save(key, p)
		if len(p.left) == 0 {
			return nil
		}
		filters = p.left
	} else {
		p.started = now
	}
	st, left, err := lc.FetchEach(ctx, filters, ingest)
	lc.Link().Fetched(st)
	p.left = left
	c.paged.save(key, p)
	return err
}

// reconcileEach reconciles each filter's whole history with NIP-77 where the
// relay does it and returns the filters left to page.
func (c *repoRelay) reconcileEach(ctx context.Context, lc *relay.LiveConn, filters nostr.Filters, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) (nostr.Filters, error) {
	var paged nostr.Filters
	for _, f := range filters {
		err := c.reconcile(ctx, lc, f, ingest, refresh)
		switch {
		case err == nil:
		case errors.Is(err, relay.ErrNotReconciled) || relay.IsReconcileRefused(err):
			paged = append(paged, f)
		default:
			return nil, err
		}
	}
	return paged, nil
}

// reconcile fetches what f's history holds that we lack, found by NIP-77.
func (c *repoRelay) reconcile(ctx context.Context, lc *relay.LiveConn, f nostr.Filter, ingest func([]*nostr.Event) error, refresh *relay.RefreshTally) error {
	_, rec, err := relay.ReconcileHeld(ctx, lc.Link(), lc.Conn, f, relay.PagedQuery, func(max int) ([]store.Stamp, error) {
		held, err := c.s.cfg.Store.Stamps(ctx, f, max)
		return held, relay.Local(err)
	}, store.StampPairs[store.Stamp], refresh)
	if err != nil {
		return err
	}
	st, err := lc.FetchIDs(ctx, f, rec.Need, ingest)
	lc.Link().Fetched(st)
	return err
}

func timestamp(unix int64) *nostr.Timestamp {
	ts := nostr.Timestamp(unix)
	return &ts
}
