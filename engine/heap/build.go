package heap

import (
	"context"
	"runtime"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// Source is the store as Build reads it: every stored event of the given
// kinds, and the identity facts.
type Source interface {
	Scan(ctx context.Context, kinds []int, fn func(*nostr.Event) error) error
	IdentitySource
}

// buildBatch is the number of events parsed and applied as one unit; it
// bounds how long one Build step holds the write lock, so readers are served
// while a large heap loads.
const buildBatch = 4096

// BuildResult counts what Build loaded.
type BuildResult struct {
	Events  int // events read from the store
	Skipped int // events the parser refused (a rule changed since they were stored)
}

// parsedBatch is one batch of stored events, parsed.
type parsedBatch struct {
	stmts   []*validation.Statement
	claims  []*validation.Claims
	skipped int
}

// Build loads the stored slot winners and identity facts into the heap.
// Signatures are not checked again: they were verified on write (SPEC §4);
// each event still goes through the same parse path as ingest.
func (h *Heap) Build(ctx context.Context, src Source) (BuildResult, error) {
	if err := h.loadIdentities(ctx, src); err != nil {
		return BuildResult{}, err
	}
	kinds := []int{validation.KindClaims, validation.KindTrust, validation.KindRating}
	return h.load(ctx, src, kinds, func(p parsedBatch) { h.Apply(p.stmts, p.claims) })
}

// load scans the stored events of kinds and hands them to apply in batches,
// in scan order. Parsing is most of a build's CPU, so batches are parsed on
// parallel goroutines while this one applies them as they complete.
func (h *Heap) load(ctx context.Context, src Source, kinds []int, apply func(parsedBatch)) (BuildResult, error) {
	var res BuildResult
	// Each queued channel delivers one batch's parse; the queue's capacity
	// bounds the batches in flight.
	queue := make(chan chan parsedBatch, runtime.GOMAXPROCS(0)+1)
	applied := make(chan struct{})
	go func() {
		defer close(applied)
		for next := range queue {
			p := <-next
			apply(p)
			res.Skipped += p.skipped
		}
	}()
	batch := make([]*nostr.Event, 0, buildBatch)
	submit := func() {
		out := make(chan parsedBatch, 1)
		queue <- out
		go func(evs []*nostr.Event) { out <- parseBatch(evs) }(batch)
		batch = make([]*nostr.Event, 0, buildBatch)
	}
	err := src.Scan(ctx, kinds, func(ev *nostr.Event) error {
		res.Events++
		if batch = append(batch, ev); len(batch) == buildBatch {
			submit()
		}
		return nil
	})
	if len(batch) > 0 {
		submit()
	}
	close(queue)
	<-applied
	return res, err
}

func parseBatch(evs []*nostr.Event) parsedBatch {
	var p parsedBatch
	p.stmts = make([]*validation.Statement, 0, len(evs))
	for _, ev := range evs {
		if err := parseInto(ev, &p.stmts, &p.claims); err != nil {
			p.skipped++
		}
	}
	return p
}

// parseInto parses a stored event and appends it to stmts or claims.
func parseInto(ev *nostr.Event, stmts *[]*validation.Statement, claims *[]*validation.Claims) error {
	if ev.Kind == validation.KindClaims {
		c, err := validation.ParseClaims(ev)
		if err == nil {
			*claims = append(*claims, c)
		}
		return err
	}
	s, err := validation.ParseStatement(ev)
	if err == nil {
		*stmts = append(*stmts, s)
	}
	return err
}

// ApplyParsed applies what the ingest checker parsed from committed events
// (events the trust rules did not parse are skipped): the pipeline's path
// into the heap, with no second parse.
func (h *Heap) ApplyParsed(parsed []validation.Parsed) Change {
	var stmts []*validation.Statement
	var claims []*validation.Claims
	for _, p := range parsed {
		if p.Statement != nil {
			stmts = append(stmts, p.Statement)
		}
		if p.Claims != nil {
			claims = append(claims, p.Claims)
		}
	}
	return h.Apply(stmts, claims)
}
