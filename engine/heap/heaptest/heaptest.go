// Package heaptest builds valid trust events and large random graphs for the
// tests and benchmarks of the heap, frontier and resolver packages.
package heaptest

import (
	"fmt"
	"math/rand/v2"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// Pubkey is a deterministic hex pubkey for number i.
func Pubkey(i int) string { return fmt.Sprintf("%064x", i) }

// TrustEvent is a valid, unsigned 32009 event (or 32014 when value is a
// score and kind says so) with its `d` computed from the material.
func TrustEvent(kind int, author string, tag byte, subject, value, context string, scopes []string, createdAt int64, extra ...nostr.Tag) *nostr.Event {
	valueTag := "v"
	if kind == validation.KindRating {
		valueTag = "score"
	}
	tags := nostr.Tags{
		{"d", validation.StatementD(tag, subject, scopes, context)},
		{string(tag), subject},
		{valueTag, value},
	}
	if context != "" {
		tags = append(tags, nostr.Tag{"c", context})
	}
	for _, s := range scopes {
		tags = append(tags, nostr.Tag{"s", s})
	}
	ev := &nostr.Event{Kind: kind, PubKey: author, CreatedAt: nostr.Timestamp(createdAt), Tags: append(tags, extra...)}
	ev.ID = ev.GetID()
	return ev
}

// ClaimsEvent is a valid, unsigned 10011 claiming one X account; an empty
// twitterID claims nothing (a revocation).
func ClaimsEvent(author string, createdAt int64, twitterID string) *nostr.Event {
	ev := &nostr.Event{Kind: validation.KindClaims, PubKey: author, CreatedAt: nostr.Timestamp(createdAt)}
	if twitterID != "" {
		ev.Tags = nostr.Tags{{"i", "twitter:user" + twitterID, "1"}, {"i", "twitter_id:" + twitterID, "1"}}
	}
	ev.ID = ev.GetID()
	return ev
}

// Graph describes a random trust graph: Authors pubkeys (numbered 1..Authors),
// each with PerAuthor statements about random other authors; one in ten
// statements is about an X account instead, and values are mostly positive.
type Graph struct {
	Authors, PerAuthor int
	Seed               uint64
	// Hints: each statement about an X account carries a hint naming a
	// pubkey that may hold the account, as a hinted `i` tag does
	Hints bool
}

// Statements yields the graph's statements in batches of at most 10,000,
// reusing no memory between batches.
func (g Graph) Statements(fn func(batch []*validation.Statement)) {
	rng := rand.New(rand.NewPCG(g.Seed, 1))
	values := []string{"1", "1", "1", "1", "1", "1", "0", "-1"}
	batch := make([]*validation.Statement, 0, 10000)
	n := 0
	for a := 1; a <= g.Authors; a++ {
		for range g.PerAuthor {
			n++
			s := &validation.Statement{
				Kind: validation.KindTrust, ID: fmt.Sprintf("%064x", 1<<62|n), Author: Pubkey(a), CreatedAt: 1,
				SubjectTag: 'p', Subject: Pubkey(1 + rng.IntN(g.Authors)), Value: values[rng.IntN(len(values))],
			}
			if rng.IntN(10) == 0 {
				s.SubjectTag, s.Subject, s.Scopes = 'i', fmt.Sprintf("user:id:%d", rng.IntN(g.Authors)), []string{"x.com"}
				if g.Hints {
					s.BoundHints = []string{Pubkey(1 + rng.IntN(g.Authors))}
				}
			}
			batch = append(batch, s)
			if len(batch) == cap(batch) {
				fn(batch)
				batch = make([]*validation.Statement, 0, 10000)
			}
		}
	}
	if len(batch) > 0 {
		fn(batch)
	}
}

// WideLimits are caps high enough that a walk of a benchmark graph reaches
// most of it.
var WideLimits = settings.Limits{MaxDepth: 5, MaxAuthorsPerLevel: 100_000, MaxTotalAuthors: 100_000}

// SpreadRoots returns n roots spread over a graph's authors, enough of them
// that depth 5 reaches nearly every author.
func SpreadRoots(n int) []string {
	roots := make([]string, n)
	for i := range roots {
		roots[i] = Pubkey((i + 1) * 997)
	}
	return roots
}
