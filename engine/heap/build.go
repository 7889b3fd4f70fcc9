package heap

import (
	"context"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// EventScanner yields every stored event of the given kinds (the store).
type EventScanner interface {
	Scan(ctx context.Context, kinds []int, fn func(*nostr.Event) error) error
}

// buildBatch bounds how long one Build step holds the write lock, so
// readers are served while a large heap loads.
const buildBatch = 4096

// BuildResult counts what Build loaded.
type BuildResult struct {
	Events  int // events read from the store
	Skipped int // events the parser refused (a rule changed since they were stored)
}

// Build loads the stored slot winners into the heap. Signatures are not
// checked again: they were verified on write (SPEC §4); each event still goes
// through the same parse path as ingest.
func (h *Heap) Build(ctx context.Context, src EventScanner) (BuildResult, error) {
	var res BuildResult
	stmts := make([]*validation.Statement, 0, buildBatch)
	var claims []*validation.Claims
	flush := func() {
		h.Apply(stmts, claims)
		stmts, claims = stmts[:0], claims[:0]
	}
	err := src.Scan(ctx, []int{validation.KindClaims, validation.KindTrust, validation.KindRating}, func(ev *nostr.Event) error {
		res.Events++
		if err := parseInto(ev, &stmts, &claims); err != nil {
			res.Skipped++
		}
		if len(stmts)+len(claims) >= buildBatch {
			flush()
		}
		return nil
	})
	flush()
	return res, err
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

// ApplyEvents parses committed events and applies them: the ingest
// pipeline's path into the heap. Events of other kinds are ignored.
func (h *Heap) ApplyEvents(evs []*nostr.Event) Change {
	var stmts []*validation.Statement
	var claims []*validation.Claims
	for _, ev := range evs {
		switch ev.Kind {
		case validation.KindTrust, validation.KindRating, validation.KindClaims:
			_ = parseInto(ev, &stmts, &claims) // validated before commit; a failure cannot occur here
		}
	}
	return h.Apply(stmts, claims)
}
