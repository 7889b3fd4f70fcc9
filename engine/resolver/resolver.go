// Package resolver answers trust queries (SPEC §7) from the heap and the sync
// frontier: a verdict with its evidence, the paths that reached each author,
// ratings, and an honest coverage statement.
package resolver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// Verdicts. There is no numeric or universal score.
const (
	VerdictTrusted    = "trusted"    // positive evidence only (neutral may accompany it)
	VerdictDistrusted = "distrusted" // negative evidence only (neutral may accompany it)
	VerdictMixed      = "mixed"      // both positive and negative evidence
	VerdictNeutral    = "neutral"    // only neutral evidence
	VerdictNone       = "none"       // no evidence from the frontier
)

// MaxPaths bounds the paths in one answer.
const MaxPaths = 20

// ErrSubject is returned for a subject the resolver cannot read.
var ErrSubject = errors.New("unrecognised subject")

// Query is one trust question.
type Query struct {
	Subject string   `json:"subject"` // hex pubkey, npub1…, user:id:N, post:id:N or hex event id
	Context string   `json:"context,omitempty"`
	Scope   string   `json:"scope,omitempty"`
	Roots   []string `json:"roots,omitempty"` // extra roots for this query only (hex)
}

// Answer is the resolver answer (SPEC §12).
type Answer struct {
	Subject       string              `json:"subject"`
	Context       string              `json:"context"`
	Verdict       string              `json:"verdict"`
	Evidence      []Evidence          `json:"evidence"`
	Paths         [][]string          `json:"paths"`
	Ratings       Ratings             `json:"ratings"`
	Bindings      []heap.Binding      `json:"bindings"` // X account ↔ pubkey pairs involving the subject
	GraphVersion  uint64              `json:"graphVersion"`
	ComputeMicros int64               `json:"computeMicros"`
	Truncation    []status.Truncation `json:"truncation"`
	Coverage      status.Coverage     `json:"coverage"`
}

// Evidence is one frontier author's statement about the subject.
type Evidence struct {
	Author    string  `json:"author"`
	Subject   string  `json:"subject"` // the subject or an identity bound to it
	Value     int     `json:"value"`   // 1 trust, 0 neutral, -1 distrust
	Context   string  `json:"context"` // the context whose slot answered
	Depth     int     `json:"depth"`   // the author's hops from a root
	EventID   string  `json:"eventId"`
	CreatedAt int64   `json:"createdAt"`
	Labels    []Label `json:"labels"`
	Content   string  `json:"content"` // sanitised
}

// Label is an `l` tag of the evidence, description sanitised.
type Label struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Ratings summarises the 32014 ratings of frontier authors (exact context).
// The average, as the verdict, comes from the nearest depth that rated
// (NIP-32014 client behaviour, the extension's resolver).
type Ratings struct {
	Count    int     `json:"count"`    // every frontier author's rating
	Average  float64 `json:"average"`  // of the ratings at Depth
	Depth    int     `json:"depth"`    // the nearest depth with a rating
	Averaged int     `json:"averaged"` // ratings at Depth
}

// FrontierSource gives the frontier a query walks (the frontier.Tracker).
type FrontierSource interface {
	Current() *frontier.Result
	WithRoots(extra []string) *frontier.Result
}

// CoverageSource reports why the synced data may be incomplete.
type CoverageSource interface {
	SyncCoverage() []string
}

// Resolver answers queries. It is safe for concurrent use.
type Resolver struct {
	heap     *heap.Heap
	frontier FrontierSource
	coverage CoverageSource
	now      func() time.Time
}

// New returns a resolver; cov may be nil (no sync reasons).
func New(h *heap.Heap, f FrontierSource, cov CoverageSource) *Resolver {
	return &Resolver{heap: h, frontier: f, coverage: cov, now: time.Now}
}

// subjectRef is a subject as heap lookups take it.
type subjectRef struct {
	tag   byte
	value string
}

// Resolve answers q. Only a malformed subject is an error; a subject nobody
// in the frontier spoke about gets verdict "none".
func (r *Resolver) Resolve(ctx context.Context, q Query) (Answer, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	subject, refs, err := parseSubject(q.Subject)
	if err != nil {
		return Answer{}, err
	}
	fr := r.frontier.Current()
	if len(q.Roots) > 0 {
		fr = r.frontier.WithRoots(q.Roots)
	}
	a := Answer{
		Subject: subject, Context: q.Context,
		Evidence: []Evidence{}, Paths: [][]string{}, Bindings: []heap.Binding{},
		Truncation: append([]status.Truncation{}, fr.Truncation...),
	}
	now := r.now().Unix()
	var limitReason string
	pending := false
	var ratings []rating
	r.heap.View(func(v heap.View) {
		a.GraphVersion, limitReason = v.Version(), v.LimitReason()
		inFrontier := func(n heap.NodeID) bool { _, ok := fr.NodeDepth(n); return ok }
		for _, n := range subjectNodes(v, refs, now, inFrontier) {
			for _, b := range v.Bindings(n, now, inFrontier) {
				if slices.Contains(a.Bindings, b) {
					continue // a bound pair shows on both of its nodes
				}
				a.Bindings = append(a.Bindings, b)
				pending = pending || b.State == heap.StatePending
			}
			for _, ev := range v.Statements(n, validation.KindTrust, q.Context, q.Scope, now, inFrontier) {
				a.Evidence = append(a.Evidence, evidence(v, fr, ev))
			}
			for _, ev := range v.Statements(n, validation.KindRating, q.Context, q.Scope, now, inFrontier) {
				depth, _ := fr.NodeDepth(ev.Author)
				ratings = append(ratings, rating{depth, ev.Score})
			}
		}
	})
	slices.SortFunc(a.Evidence, func(x, y Evidence) int {
		return cmp.Or(cmp.Compare(x.Depth, y.Depth), strings.Compare(x.Author, y.Author), strings.Compare(x.Subject, y.Subject))
	})
	a.Ratings = summarise(ratings)
	a.Verdict = verdict(nearest(a.Evidence))
	a.Paths = paths(fr, a.Evidence)
	a.Coverage = r.coverageOf(fr, pending, limitReason)
	a.ComputeMicros = time.Since(start).Microseconds()
	return a, nil
}

// subjectNodes are the held nodes of the subject and of the identities
// the frontier binds to it, without repeats.
func subjectNodes(v heap.View, refs []subjectRef, now int64, inFrontier heap.Trusted) []heap.NodeID {
	var out []heap.NodeID
	for _, ref := range refs {
		n, ok := v.Subject(ref.tag, ref.value)
		if !ok {
			continue
		}
		for _, m := range append([]heap.NodeID{n}, v.Aliases(n, now, inFrontier)...) {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

func evidence(v heap.View, fr *frontier.Result, ev heap.Evidence) Evidence {
	depth, _ := fr.NodeDepth(ev.Author)
	out := Evidence{
		Author: v.Text(ev.Author), Subject: v.Text(ev.Subject), Value: ev.Value, Context: ev.Context,
		Depth: depth, EventID: ev.EventID, CreatedAt: ev.CreatedAt,
		Labels: make([]Label, 0, len(ev.Labels)), Content: validation.Sanitize(ev.Content),
	}
	for _, l := range ev.Labels {
		out.Labels = append(out.Labels, Label{Name: validation.Sanitize(l.Name), Description: validation.Sanitize(l.Description)})
	}
	return out
}

// rating is one frontier author's score and the author's depth.
type rating struct {
	depth int
	score float64
}

// summarise counts every rating and averages those at the nearest depth.
func summarise(rs []rating) Ratings {
	if len(rs) == 0 {
		return Ratings{}
	}
	out := Ratings{Count: len(rs), Depth: slices.MinFunc(rs, func(x, y rating) int { return cmp.Compare(x.depth, y.depth) }).depth}
	sum := 0.0
	for _, r := range rs {
		if r.depth == out.Depth {
			sum += r.score
			out.Averaged++
		}
	}
	out.Average = sum / float64(out.Averaged)
	return out
}

// nearest is the evidence at the nearest depth that has any (evidence is
// sorted by depth): farther authors are listed but do not decide.
func nearest(evidence []Evidence) []Evidence {
	i := 0
	for i < len(evidence) && evidence[i].Depth == evidence[0].Depth {
		i++
	}
	return evidence[:i]
}

func verdict(evidence []Evidence) string {
	var pos, neg, neutral bool
	for _, e := range evidence {
		switch {
		case e.Value > 0:
			pos = true
		case e.Value < 0:
			neg = true
		default:
			neutral = true
		}
	}
	switch {
	case pos && neg:
		return VerdictMixed
	case pos:
		return VerdictTrusted
	case neg:
		return VerdictDistrusted
	case neutral:
		return VerdictNeutral
	}
	return VerdictNone
}

// paths are the hop paths to the evidence authors, nearest first, one per
// author, at most MaxPaths.
func paths(fr *frontier.Result, evidence []Evidence) [][]string {
	out := [][]string{}
	var seen []string
	for _, e := range evidence {
		if len(out) == MaxPaths {
			break
		}
		if slices.Contains(seen, e.Author) {
			continue
		}
		seen = append(seen, e.Author)
		if p := fr.Path(e.Author); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// coverageOf merges the sync's reasons (never-synced, sync-running,
// relay-failed:<url>, …) with the resolver's own.
func (r *Resolver) coverageOf(fr *frontier.Result, claimsPending bool, limitReason string) status.Coverage {
	var reasons []string
	if r.coverage != nil {
		reasons = append(reasons, r.coverage.SyncCoverage()...)
	}
	if fr.Truncated() {
		reasons = append(reasons, status.ReasonFrontierTruncated)
	}
	if claimsPending {
		reasons = append(reasons, status.ReasonClaimsPending)
	}
	if limitReason != "" {
		reasons = append(reasons, status.ReasonHeapLimit)
	}
	return status.NewCoverage(reasons...)
}

// CanonicalSubject checks a subject as Resolve reads it and returns its
// canonical text, so a caller can refuse bad input before asking.
func CanonicalSubject(s string) (string, error) {
	subject, _, err := parseSubject(s)
	return subject, err
}

// parseSubject reads a query subject into its canonical text and the heap
// lookups it stands for. A 64-hex value may be a pubkey or an event id, so
// both are looked up.
func parseSubject(s string) (string, []subjectRef, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "npub1"):
		hexKey, err := validation.DecodeNpub(s)
		if err != nil {
			return "", nil, fmt.Errorf("%w: %v", ErrSubject, err)
		}
		return hexKey, []subjectRef{{'p', hexKey}}, nil
	case isHex64(s):
		s = strings.ToLower(s)
		return s, []subjectRef{{'p', s}, {'e', s}}, nil
	case strings.HasPrefix(s, "user:id:"), strings.HasPrefix(s, "post:id:"):
		if digits := s[len("user:id:"):]; digits == "" || strings.Trim(digits, "0123456789") != "" {
			return "", nil, fmt.Errorf("%w: %s needs a decimal id", ErrSubject, s[:len("user:id")])
		}
		return s, []subjectRef{{'i', s}}, nil
	case strings.Count(s, ":") >= 1 && !strings.ContainsAny(s, " \t\r\n"):
		return s, []subjectRef{{'i', s}}, nil
	}
	return "", nil, fmt.Errorf("%w: %q is not a hex pubkey, npub, event id or typed subject", ErrSubject, s)
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
