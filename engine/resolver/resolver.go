// Package resolver answers trust queries (SPEC §7) from the heap and the sync
// frontier: a verdict with its evidence, the paths that reached each author,
// ratings, and an honest coverage statement.
package resolver

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// Verdicts, from the percentage round(100 × trust ÷ (trust + distrust)) at
// the nearest degree with evidence (the extension's trustScoreResolution).
// There is no numeric or universal score.
const (
	VerdictTrusted    = "trusted"    // at or above the follow threshold
	VerdictDistrusted = "distrusted" // below the red band's end
	VerdictMixed      = "mixed"      // between
	VerdictNone       = "none"       // nothing counted (neutral statements never count)
)

// MaxPaths bounds the paths in one answer: one per evidence author, nearest first.
const MaxPaths = 20

// ErrSubject is returned for a subject the resolver cannot read.
var ErrSubject = errors.New("unrecognised subject")

// ErrBand is returned for a max degree or percentage out of its range.
var ErrBand = errors.New("invalid")

// Query is one trust question.
type Query struct {
	Subject string   `json:"subject"` // hex pubkey, npub1…, user:id:N, post:id:N or hex event id
	Context string   `json:"context,omitempty"`
	Scope   string   `json:"scope,omitempty"`
	Roots   []string `json:"roots,omitempty"` // extra roots for this query only (hex)
	// The extension's knobs, for this query only; nil takes the resolver's
	// Band (the user's settings).
	MaxDegree       *int `json:"maxDegree,omitempty"`       // 1..5
	FollowThreshold *int `json:"followThreshold,omitempty"` // 0..100
	Red             *int `json:"red,omitempty"`             // 0..100; above the threshold it is lowered to it
}

// Band is the max degree and the follow band a query is answered with.
type Band struct {
	MaxDegree       int `json:"maxDegree"`
	FollowThreshold int `json:"followThreshold"`
	Red             int `json:"red"`
}

// DefaultBand is the extension's defaults (and the settings').
var DefaultBand = Band{MaxDegree: 4, FollowThreshold: settings.DefaultFollowThreshold, Red: settings.DefaultRed}

// band is q's overrides on top of def, checked as the extension's sliders
// bound them; a red above the threshold is lowered to meet it, as the
// extension does (no mixed band).
func (q Query) band(def Band) (Band, error) {
	b := def
	for _, o := range []struct {
		name     string
		v        *int
		to       *int
		min, max int
	}{
		{"maxDegree", q.MaxDegree, &b.MaxDegree, 1, settings.MaxDepthHardCap},
		{"followThreshold", q.FollowThreshold, &b.FollowThreshold, 0, 100},
		{"red", q.Red, &b.Red, 0, 100},
	} {
		if o.v == nil {
			continue
		}
		if *o.v < o.min || *o.v > o.max {
			return Band{}, fmt.Errorf("%w: %s must be from %d to %d, not %d", ErrBand, o.name, o.min, o.max, *o.v)
		}
		*o.to = *o.v
	}
	b.Red = min(b.Red, b.FollowThreshold)
	return b, nil
}

// Answer is the resolver answer (SPEC §12).
type Answer struct {
	Subject string `json:"subject"`
	Context string `json:"context"`
	Verdict string `json:"verdict"`
	Band    Band   `json:"band"` // the values this answer used
	// Degree is the degree that decided (its authors' depth + 1, as the
	// extension counts it); 0 when no followed author spoke.
	Degree int `json:"degree"`
	// Percent is round(100 × trust ÷ (trust + distrust)) at Degree; null
	// when nothing counted there (only neutral statements, or none).
	Percent       *int                `json:"percent"`
	Degrees       []DegreeCount       `json:"degrees"` // the counts at every degree that has evidence
	Evidence      []Evidence          `json:"evidence"`
	Paths         [][]string          `json:"paths"`
	Ratings       Ratings             `json:"ratings"`
	Bindings      []heap.Binding      `json:"bindings"` // X account ↔ pubkey pairs involving the subject
	GraphVersion  uint64              `json:"graphVersion"`
	ComputeMicros int64               `json:"computeMicros"`
	Truncation    []status.Truncation `json:"truncation"`
	Coverage      status.Coverage     `json:"coverage"`
}

// DegreeCount is the statements of the authors at one degree.
type DegreeCount struct {
	Degree   int `json:"degree"`
	Trust    int `json:"trust"`
	Distrust int `json:"distrust"`
	Neutral  int `json:"neutral"`
}

// Evidence is one followed author's statement about the subject.
type Evidence struct {
	Author    string  `json:"author"`
	Subject   string  `json:"subject"` // the subject or an identity bound to it
	Value     int     `json:"value"`   // 1 trust, 0 neutral, -1 distrust
	Context   string  `json:"context"` // the context whose slot answered
	Depth     int     `json:"depth"`   // the author's hops from a root in the walk
	Counted   bool    `json:"counted"` // a trust or distrust at the deciding degree
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

// Ratings summarises the 32014 ratings of the authors the ratings walk
// follows (the trust walk with follow threshold 1), in the query context,
// its parents, then global. The average, as the verdict, comes from the
// nearest depth that rated (the extension's rating resolver).
type Ratings struct {
	Count    int     `json:"count"`    // every followed author's rating
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

// UnfetchedSource names the frontier members whose history no relay has
// given yet (the sync's newcomers), and whether the frontier is behind the
// heap (a change waits for its walk, so people the heap already reaches may
// not be members yet); a CoverageSource may also be one. The members are
// sorted, and a change gives a new list rather than changing the last one.
type UnfetchedSource interface {
	NotYetFetched() (members []string, frontierBehind bool)
}

// BandSource gives the user's band, which queries override per field.
type BandSource func() Band

// Resolver answers queries. It is safe for concurrent use.
type Resolver struct {
	heap     *heap.Heap
	frontier FrontierSource
	coverage CoverageSource
	fetching UnfetchedSource // nil: every member counts as fetched
	band     BandSource
	walks    walkCache
	pending  pendingNodes
	reached  reachedCount
	now      func() time.Time
}

// New returns a resolver; cov may be nil (no sync reasons), band nil for
// DefaultBand.
func New(h *heap.Heap, f FrontierSource, cov CoverageSource, band BandSource) *Resolver {
	if band == nil {
		band = func() Band { return DefaultBand }
	}
	fetching, _ := cov.(UnfetchedSource)
	return &Resolver{heap: h, frontier: f, coverage: cov, fetching: fetching, band: band, now: time.Now}
}

// subjectRef is a subject as heap lookups take it.
type subjectRef struct {
	tag   byte
	value string
}

// Resolve answers q. Only a malformed subject or band is an error; a
// subject no followed author spoke about gets verdict "none".
func (r *Resolver) Resolve(ctx context.Context, q Query) (Answer, error) {
	subject, refs, err := parseSubject(q.Subject)
	if err != nil {
		return Answer{}, err
	}
	answers, err := r.answerAll(ctx, q, []parsedSubject{{subject, refs}})
	if err != nil {
		return Answer{}, err
	}
	return answers[0], nil
}

// parsedSubject is a subject as parseSubject read it.
type parsedSubject struct {
	text string
	refs []subjectRef
}

// answerAll answers q for each subject, in order, from one view of the heap
// and one walk of each kind: the answers share a graphVersion.
func (r *Resolver) answerAll(ctx context.Context, q Query, subjects []parsedSubject) ([]Answer, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	band, err := q.band(r.band())
	if err != nil {
		return nil, err
	}
	base := r.frontier.Current()
	fr := base
	if len(q.Roots) > 0 {
		fr = r.frontier.WithRoots(q.Roots)
	}
	now := r.now().Unix()
	var limitReason string
	var unfetched int
	answers := make([]Answer, len(subjects))
	pending := make([]bool, len(subjects))
	spent := make([]time.Duration, len(subjects))
	var walked time.Duration
	r.heap.View(func(v heap.View) {
		limitReason = v.LimitReason()
		w := r.walksOf(v, fr.Roots, q.Context, q.Scope, band, now)
		w.inFrontier = func(n heap.NodeID) bool { _, ok := fr.NodeDepth(n); return ok }
		unfetched = r.unfetchedReached(v, w, fr, base)
		walked = time.Since(start)
		for i, s := range subjects {
			began := time.Now()
			answers[i] = Answer{
				Subject: s.text, Context: q.Context, Band: band,
				Degrees: []DegreeCount{}, Evidence: []Evidence{}, Paths: [][]string{}, Bindings: []heap.Binding{},
				Truncation: append([]status.Truncation{}, fr.Truncation...), GraphVersion: v.Version(),
			}
			pending[i] = answers[i].fill(v, w, s.refs, q, now)
			spent[i] = time.Since(began)
		}
	})
	for i := range answers {
		a := &answers[i]
		a.decide()
		a.Coverage = r.coverageOf(fr, pending[i], limitReason, unfetched)
		// the shared walks, then this subject's own part
		a.ComputeMicros = (walked + spent[i]).Microseconds()
	}
	return answers, nil
}

// walks are the walks one question's subjects share.
type walks struct {
	trust, rating *walk
	inFrontier    heap.Trusted
}

// walksOf are the trust and rating walks of a question from roots (the
// frontier's), from the cache.
func (r *Resolver) walksOf(v heap.View, roots []string, context, scope string, band Band, now int64) walks {
	p := walkParams{roots: strings.Join(roots, ","), context: context, scope: scope, maxDegree: band.MaxDegree, threshold: band.FollowThreshold}
	w := walks{trust: r.walks.get(v, p, now)}
	p.threshold = 1 // the extension's rating query follows any author with a positive percentage
	w.rating = r.walks.get(v, p, now)
	return w
}

// Warm walks what a question from roots (the configured ones, as the
// frontier keeps them) in scope (the scope profile), with no context or
// band of its own, walks, so that the first question after a start finds it
// walked. A start runs it beside the frontier's adoption, which takes as
// long (0.4 s each at 300,000 people): a question arriving meanwhile waits
// for the same walk.
func (r *Resolver) Warm(roots []string, scope string) {
	band := r.band()
	r.heap.View(func(v heap.View) { r.walksOf(v, roots, "", scope, band, r.now().Unix()) })
}

// fill adds the evidence, paths, bindings and ratings about one subject
// and reports whether a binding it depends on is still pending.
func (a *Answer) fill(v heap.View, w walks, refs []subjectRef, q Query, now int64) (pending bool) {
	nodes := subjectNodes(v, refs, now, w.inFrontier)
	counted := func(w *walk) func(heap.NodeID) bool {
		return func(n heap.NodeID) bool {
			_, ok := w.depthOf(n)
			return ok && !slices.Contains(nodes, n) // a subject's word about itself is no evidence
		}
	}
	// one statement per author: the subject's own node first, then aliases
	// (a set: a popular subject has thousands of speakers; one node's
	// statements are one per author already)
	spoke := map[heap.NodeID]bool{}
	stated, total := make([][]heap.Evidence, len(nodes)), 0
	for i, n := range nodes {
		for _, b := range v.Bindings(n, now, w.inFrontier) {
			if slices.Contains(a.Bindings, b) {
				continue // a bound pair shows on both of its nodes
			}
			a.Bindings = append(a.Bindings, b)
			pending = pending || b.State == heap.StatePending
		}
		stated[i] = v.Statements(n, validation.KindTrust, q.Context, q.Scope, now, counted(w.trust))
		total += len(stated[i])
	}
	said := make([]spoken, 0, total)
	for i, n := range nodes {
		subject := v.Text(n)
		for _, ev := range stated[i] {
			if len(nodes) > 1 {
				if spoke[ev.Author] {
					continue
				}
				spoke[ev.Author] = true
			}
			depth, _ := w.trust.depthOf(ev.Author)
			said = append(said, spoken{ev: ev, depth: depth, subject: subject})
		}
	}
	a.Evidence = evidenceOf(v, said)
	for _, e := range a.Evidence {
		if len(a.Paths) == MaxPaths {
			break
		}
		if author, ok := v.Pubkey(e.Author); ok {
			a.Paths = append(a.Paths, w.trust.path(v, author))
		}
	}
	rated := map[heap.NodeID]bool{}
	var ratings []rating
	for _, n := range nodes {
		for _, ev := range v.Statements(n, validation.KindRating, q.Context, q.Scope, now, counted(w.rating)) {
			if !rated[ev.Author] {
				rated[ev.Author] = true
				depth, _ := w.rating.depthOf(ev.Author)
				ratings = append(ratings, rating{depth, ev.Score})
			}
		}
	}
	a.Ratings = summarise(ratings)
	return pending
}

// decide counts the evidence per degree and takes the verdict from the
// nearest degree that has any (a neutral statement stops farther degrees
// from counting, as the extension's Score.add does).
func (a *Answer) decide() {
	for _, e := range a.Evidence {
		degree := e.Depth + 1
		if n := len(a.Degrees); n == 0 || a.Degrees[n-1].Degree != degree {
			a.Degrees = append(a.Degrees, DegreeCount{Degree: degree})
		}
		d := &a.Degrees[len(a.Degrees)-1]
		switch {
		case e.Value > 0:
			d.Trust++
		case e.Value < 0:
			d.Distrust++
		default:
			d.Neutral++
		}
	}
	a.Verdict = VerdictNone
	if len(a.Degrees) == 0 {
		return
	}
	nearest := a.Degrees[0]
	a.Degree = nearest.Degree
	for i := range a.Evidence {
		a.Evidence[i].Counted = a.Evidence[i].Depth+1 == a.Degree && a.Evidence[i].Value != 0
	}
	p, ok := percent(nearest.Trust, nearest.Distrust)
	if !ok {
		return
	}
	a.Percent = &p
	switch {
	case p >= a.Band.FollowThreshold:
		a.Verdict = VerdictTrusted
	case p < a.Band.Red:
		a.Verdict = VerdictDistrusted
	default:
		a.Verdict = VerdictMixed
	}
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

// spoken is an author's statement about a subject node (text subject), at
// the author's depth in the trust walk.
type spoken struct {
	ev      heap.Evidence
	depth   int
	subject string
}

// evidenceOf is the answer's evidence of what was said, nearest authors
// first, then by author and subject. A popular subject has thousands of
// statements: they are ordered by small keys, and their authors' keys and
// event ids are written into one string that their texts share, where a
// string each and sorting the answer's rows took most of a 20 ms answer at
// 300,000 people.
func evidenceOf(v heap.View, said []spoken) []Evidence {
	type sortKey struct {
		order    [4]uint64 // the author's key: pubkeys order as their hex does
		depth, i int
	}
	keys := make([]sortKey, len(said))
	for i, s := range said {
		keys[i] = sortKey{order: v.OrderKey(s.ev.Author), depth: s.depth, i: i}
	}
	slices.SortFunc(keys, func(x, y sortKey) int {
		if x.depth != y.depth {
			return cmp.Compare(x.depth, y.depth)
		}
		if c := compareKeys(x.order, y.order); c != 0 {
			return c
		}
		return strings.Compare(said[x.i].subject, said[y.i].subject)
	})
	buf := make([]byte, 0, len(said)*2*hex.EncodedLen(32))
	ends := make([]int, 0, 2*len(said))
	for _, k := range keys {
		buf = v.AppendText(buf, said[k.i].ev.Author)
		ends = append(ends, len(buf))
		buf = hex.AppendEncode(buf, said[k.i].ev.ID[:])
		ends = append(ends, len(buf))
	}
	text := string(buf)
	out := make([]Evidence, len(keys))
	start := 0
	for j, k := range keys {
		s := said[k.i]
		author, id := text[start:ends[2*j]], text[ends[2*j]:ends[2*j+1]]
		start = ends[2*j+1]
		out[j] = Evidence{
			Author: author, Subject: s.subject, Value: s.ev.Value, Context: s.ev.Context,
			Depth: s.depth, EventID: id, CreatedAt: s.ev.CreatedAt,
			Labels: make([]Label, 0, len(s.ev.Labels)), Content: validation.Sanitize(s.ev.Content),
		}
		for _, l := range s.ev.Labels {
			out[j].Labels = append(out[j].Labels, Label{Name: validation.Sanitize(l.Name), Description: validation.Sanitize(l.Description)})
		}
	}
	return out
}

// rating is one followed author's score and the author's depth.
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

// coverageOf merges the sync's reasons (never-synced, sync-running,
// relay-failed:<url>, …) with the resolver's own, and how many members the
// walk reached that no relay has given yet.
func (r *Resolver) coverageOf(fr *frontier.Result, claimsPending bool, limitReason string, unfetched int) status.Coverage {
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
	return status.NotYetFetched(status.NewCoverage(reasons...), unfetched)
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
