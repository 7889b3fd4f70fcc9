package engine

import (
	"context"
	"fmt"
	"slices"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/resolver"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Query and Answer are the resolver's question and answer (SPEC §7, §12).
type (
	Query  = resolver.Query
	Answer = resolver.Answer
)

// trust is the engine's in-memory side: heap, frontier tracker, resolver.
type trust struct {
	heap     *heap.Heap
	frontier *frontier.Tracker
	resolver *resolver.Resolver
}

// buildTrust walks the frontier of heap h (openHeap) once, or takes the
// walk kept with its snapshot, and wires the pipeline's commits into both.
func (e *Engine) buildTrust(h *heap.Heap, clock *startClock) {
	s := e.Settings()
	tracker := frontier.NewTracker(h, frontier.Config{
		Limits:   s.Limits,
		Roots:    s.Roots,
		Debounce: e.opts.FrontierDebounce,
		// the first walk has nobody leaving; later ones run once e.sync exists
		OnLeft: func(pubkeys []string) { e.sync.AuthorsLeft(pubkeys) },
	})
	res := resolver.New(h, frontierView{e}, e, e.band)
	if e.opts.Serving { // the first question's walks, beside the frontier's on the other core
		go res.Warm(tracker.Roots(), s.ScopeProfile)
	}
	if e.walkAdopted = e.walkLoaded != nil && tracker.Adopt(e.walkLoaded); !e.walkAdopted {
		tracker.Recompute()
	}
	clock.lap("frontier")
	e.trust = trust{heap: h, frontier: tracker, resolver: res}
	e.ingest.OnCommit(func(c ingest.Committed) {
		change := h.ApplyParsed(c.Parsed)
		if change.HopsChanged {
			tracker.Notify()
		}
		if change.Applied > 0 {
			e.sync.Nudge() // a hint or a claim may want a fetch (the sync exists before any commit)
		}
	})
}

// refillHeap takes into the running heap, after each raise of a guardrail,
// the stored statements the old one refused (heap.Refill: from the store,
// commits going on meanwhile), until ctx ends. The frontier then walks
// again, unheld by the limit, and the newly allowed people are fetched as
// any newcomers are.
func (e *Engine) refillHeap(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.heapRefill:
		}
		before := e.trust.heap.Stats()
		change, err := e.trust.heap.Refill(ctx, e.store)
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("heap refill after a raised limit", "err", err)
			}
			continue
		}
		if change.HopsChanged {
			e.trust.frontier.Notify()
		}
		if change.Applied > 0 {
			e.sync.Nudge()
			after := e.trust.heap.Stats()
			e.log.Info("heap limit raised: stored statements taken in", "statements", change.Applied,
				"nodes", after.Nodes-before.Nodes, "edges", after.Edges-before.Edges, "limitReason", after.LimitReason)
		}
		e.notify()
	}
}

// frontierView is the frontier as answers show it: the walk, with the event
// caps that cut the last sync pass added to its truncation.
type frontierView struct{ e *Engine }

func (f frontierView) Current() *frontier.Result {
	return f.e.withEventCaps(f.e.trust.frontier.Current())
}

func (f frontierView) WithRoots(extra []string) *frontier.Result {
	return f.e.withEventCaps(f.e.trust.frontier.WithRoots(extra))
}

func (e *Engine) withEventCaps(r *frontier.Result) *frontier.Result {
	caps := e.sync.EventCaps()
	if len(caps) == 0 {
		return r
	}
	out := *r
	out.Truncation = slices.Concat(r.Truncation, caps)
	return &out
}

// frontierStatus is the frontier part of the status snapshot, with the
// sync's event caps beside the walk's truncation.
func (e *Engine) frontierStatus() status.Frontier {
	fs := e.trust.frontier.Status()
	fs.Truncation = slices.Concat(fs.Truncation, e.sync.EventCaps())
	return fs
}

// Resolve answers a trust question (SPEC §7). A query without a scope asks
// in the scope profile (x.com by default), as the extension: a statement
// scoped to it takes precedence over an unscoped one (issue 9 item 11).
func (e *Engine) Resolve(ctx context.Context, q Query) (Answer, error) {
	if q.Scope == "" {
		q.Scope = e.Settings().ScopeProfile
	}
	return e.trust.resolver.Resolve(ctx, q)
}

// ResolveBatch answers q about each of subjects, in order, from one walk
// (SPEC §7 batches); the scope profile applies as in Resolve.
func (e *Engine) ResolveBatch(ctx context.Context, q Query, subjects []string) (resolver.Batch, error) {
	if q.Scope == "" {
		q.Scope = e.Settings().ScopeProfile
	}
	return e.trust.resolver.ResolveBatch(ctx, q, subjects)
}

// Trusted pages the people the roots trust under q's context, scope, roots
// and band.
func (e *Engine) Trusted(ctx context.Context, q Query, offset, limit int) (resolver.TrustedPage, error) {
	if q.Scope == "" {
		q.Scope = e.Settings().ScopeProfile
	}
	return e.trust.resolver.Trusted(ctx, q, offset, limit)
}

// band is the user's max degree and follow band, which a query may override.
func (e *Engine) band() resolver.Band {
	l := e.Settings().Limits
	return resolver.Band{MaxDegree: l.MaxDepth, FollowThreshold: l.FollowThreshold, Red: l.Red}
}

// resolverPort adapts the resolver to the server's port.
type resolverPort struct{ e *Engine }

func (p resolverPort) Resolve(ctx context.Context, q server.ResolveQuery) (any, error) {
	return p.e.Resolve(ctx, p.query(q))
}

func (p resolverPort) ResolveBatch(ctx context.Context, q server.ResolveQuery) (any, error) {
	return p.e.ResolveBatch(ctx, p.query(q), q.Subjects)
}

func (p resolverPort) Trusted(ctx context.Context, q server.ResolveQuery, offset, limit int) (any, error) {
	return p.e.Trusted(ctx, p.query(q), offset, limit)
}

func (p resolverPort) GraphStats(ctx context.Context) (any, error) {
	return p.e.trust.resolver.Stats(ctx, Query{Scope: p.e.Settings().ScopeProfile})
}

// query is a client's question as the resolver takes it. The roots it
// names are followed for a while (frontier.MaxQueryRoots), so their people
// are fetched as a session's are.
func (p resolverPort) query(q server.ResolveQuery) Query {
	p.e.trust.frontier.AddQueryRoots(q.Roots)
	return Query{Subject: q.Subject, Context: q.Context, Scope: q.Scope, Roots: q.Roots,
		MaxDegree: q.MaxDegree, FollowThreshold: q.FollowThreshold, Red: q.Red}
}

// SetSessionRoots registers a client session's roots for its lifetime.
func (e *Engine) SetSessionRoots(session string, roots []string) error {
	hexes := make([]string, len(roots))
	for i, r := range roots {
		h, err := settings.ParsePubkey(r)
		if err != nil {
			return fmt.Errorf("invalid: session root: %v", err)
		}
		hexes[i] = h
	}
	e.trust.frontier.AddSessionRoots(session, hexes)
	return nil
}

// DropSession forgets a closed session's roots.
func (e *Engine) DropSession(session string) { e.trust.frontier.RemoveSession(session) }
