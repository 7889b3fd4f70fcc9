package resolver

import (
	"context"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// TestResolverMatchesReference compares the resolver with a second,
// independent implementation of the extension's rules written plainly over
// the statements (below), on seeded random webs of trust: pubkeys and typed
// subjects, trust, distrust, neutral and delete, several versions per slot,
// contexts with parents, scopes, activation windows, decimal ratings,
// several roots and a chain six deep, asked with and without a context and
// with random bands.
func TestResolverMatchesReference(t *testing.T) {
	const now = 100
	asked, decided := 0, 0
	for web := range randomWebs(12, 18) {
		seed, rng, world := web.seed, web.rng, web.world
		limits := settings.DefaultLimits()
		h := heap.New(limits)
		shuffled := slices.Clone(world.stmts)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		h.Apply(shuffled, nil)
		tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: world.roots})
		tr.Recompute()
		res := New(h, tr, nil, nil)
		res.now = func() time.Time { return time.Unix(now, 0) }
		ref := newReference(world.stmts, now)
		for _, subject := range world.subjects {
			for _, ctx := range []string{"", "identity", "development:go", "a:b"} {
				for _, scope := range []string{"x.com", ""} {
					band := Band{MaxDegree: 1 + rng.IntN(5), FollowThreshold: []int{75, 75, 1, 50, 100, 0}[rng.IntN(6)]}
					band.Red = min(rng.IntN(60), band.FollowThreshold)
					q := Query{Subject: subject.value, Context: ctx, Scope: scope,
						MaxDegree: &band.MaxDegree, FollowThreshold: &band.FollowThreshold, Red: &band.Red}
					got, err := res.Resolve(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					want := ref.answer(world.roots, subject, ctx, scope, band)
					if diff := compareAnswers(got, want); diff != "" {
						t.Fatalf("seed %d subject %s context %q scope %q band %+v: %s\ngot  %s %v %+v\nwant %+v",
							seed, subject.value, ctx, scope, band, diff, got.Verdict, got.Degrees, got.Ratings, want)
					}
					asked++
					if want.verdict != VerdictNone {
						decided++
					}
				}
			}
		}
	}
	t.Logf("%d answers compared, %d with a verdict other than none", asked, decided)
	if decided < asked/10 {
		t.Fatalf("only %d of %d answers had evidence: the generator tests little", decided, asked)
	}
}

// TestResolverMatchesReferenceBetweenCommits applies the same random webs in
// batches, asking between them with a few fixed bands, so that walks are
// kept across commits that changed nothing they read (walk.carriesTo) and
// computed again after the others: every answer must still be the
// reference's over the statements applied so far.
func TestResolverMatchesReferenceBetweenCommits(t *testing.T) {
	const now, batches = 100, 8
	var computed, carried int64
	for web := range randomWebs(12, 26) {
		seed, rng, world := web.seed, web.rng, web.world
		limits := settings.DefaultLimits()
		h := heap.New(limits)
		tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: world.roots})
		res := New(h, tr, nil, nil)
		res.now = func() time.Time { return time.Unix(now, 0) }
		shuffled := slices.Clone(world.stmts)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		bands := []Band{DefaultBand, {MaxDegree: 5, FollowThreshold: 50, Red: 25}, {MaxDegree: 3, FollowThreshold: 1, Red: 0}}
		for b := 1; b <= batches; b++ {
			applied := shuffled[:len(shuffled)*b/batches]
			h.Apply(applied[len(shuffled)*(b-1)/batches:], nil)
			tr.Recompute()
			ref := newReference(applied, now)
			for _, subject := range world.subjects {
				for _, ctx := range []string{"", "development:go"} {
					band := bands[rng.IntN(len(bands))]
					q := Query{Subject: subject.value, Context: ctx, Scope: "x.com",
						MaxDegree: &band.MaxDegree, FollowThreshold: &band.FollowThreshold, Red: &band.Red}
					got, err := res.Resolve(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					want := ref.answer(world.roots, subject, ctx, "x.com", band)
					if diff := compareAnswers(got, want); diff != "" {
						t.Fatalf("seed %d batch %d subject %s context %q band %+v: %s", seed, b, subject.value, ctx, band, diff)
					}
				}
			}
		}
		computed += res.walks.computed.Load()
		carried += res.walks.caughtUp.Load()
	}
	t.Logf("%d walks computed, %d brought up to a newer version", computed, carried)
	if carried == 0 || computed == 0 {
		t.Fatalf("walks computed %d, kept %d: the test does not exercise both", computed, carried)
	}
}

type subjectRef2 struct {
	tag   byte
	value string
}

type webWorld struct {
	stmts    []*validation.Statement
	roots    []string
	subjects []subjectRef2
}

// seededWeb is one seed's random web and the generator it was drawn from,
// for the draws a test makes after it.
type seededWeb struct {
	seed  uint64
	rng   *rand.Rand
	world webWorld
}

// randomWebs yields the webs of seeds 1..n on one PCG stream: the prologue
// of every seeded test here.
func randomWebs(n, stream uint64) iter.Seq[seededWeb] {
	return func(yield func(seededWeb) bool) {
		for seed := uint64(1); seed <= n; seed++ {
			rng := rand.New(rand.NewPCG(seed, stream))
			if !yield(seededWeb{seed, rng, randomWeb(rng)}) {
				return
			}
		}
	}
}

func randomWeb(rng *rand.Rand) webWorld {
	const people = 36
	var w webWorld
	person := func(i int) string { return fmt.Sprintf("%064x", 500+i) }
	for i := range people {
		w.subjects = append(w.subjects, subjectRef2{'p', person(i)})
	}
	for i := range 12 {
		w.subjects = append(w.subjects, subjectRef2{'i', []string{"post:id:", "user:id:"}[i%2] + strconv.Itoa(i)})
	}
	seq := 0
	add := func(author string, subj subjectRef2, kind int, value, ctx string, scoped bool, at int64) *validation.Statement {
		seq++
		s := &validation.Statement{Kind: kind, ID: fmt.Sprintf("%064x", rng.Uint64()>>8<<16|uint64(seq)), Author: author,
			CreatedAt: at, SubjectTag: subj.tag, Subject: subj.value, Value: value, Context: ctx}
		if scoped || kind == validation.KindRating {
			s.Scopes = []string{"x.com"}
		}
		switch rng.IntN(9) {
		case 0:
			s.ActiveFrom = int64(90 + rng.IntN(20))
		case 1:
			s.ActiveUntil, s.Expires = int64(90+rng.IntN(20)), true
		}
		w.stmts = append(w.stmts, s)
		return s
	}
	// a chain six deep from person 0, so every depth is reached
	for i := range 6 {
		add(person(i), subjectRef2{'p', person(i + 1)}, validation.KindTrust, "1", "", false, 1)
	}
	for _, s := range w.stmts { // always active
		s.Expires, s.ActiveFrom = false, 0
	}
	values := []string{"1", "1", "1", "1", "-1", "-1", "0", ""}
	contexts := []string{"", "", "", "identity", "development", "development:go", "a"}
	for range 260 {
		author := person(rng.IntN(people))
		subj := w.subjects[rng.IntN(len(w.subjects))]
		if rng.IntN(3) > 0 {
			subj = w.subjects[rng.IntN(people)]
		}
		ctx, scoped := contexts[rng.IntN(len(contexts))], rng.IntN(3) == 0
		kind, value := validation.KindTrust, values[rng.IntN(len(values))]
		if rng.IntN(6) == 0 {
			kind = validation.KindRating
			value = []string{"0", "100", "50.5", "73.25", "12.598334", "40", ""}[rng.IntN(7)]
		}
		for v := 0; v <= rng.IntN(3); v++ { // versions of one slot
			add(author, subj, kind, value, ctx, scoped, int64(1+rng.IntN(4)))
			value = values[rng.IntN(len(values))]
			if kind == validation.KindRating {
				value = strconv.Itoa(rng.IntN(101))
			}
		}
	}
	w.roots = []string{person(0)}
	for range rng.IntN(3) {
		w.roots = append(w.roots, person(rng.IntN(people)))
	}
	return w
}

// reference is the extension's rules over plain statements.
type reference struct {
	now     int64
	winners map[string][]*validation.Statement // author|tag|subject|kind -> slot winners
	about   map[string][]string                // author -> pubkeys it has 32009 slots about
}

func newReference(stmts []*validation.Statement, now int64) *reference {
	r := &reference{now: now, winners: map[string][]*validation.Statement{}, about: map[string][]string{}}
	slot := map[string]*validation.Statement{}
	for _, s := range stmts {
		k := fmt.Sprint(s.Author, s.SubjectTag, s.Subject, s.Kind, s.Context, s.Scopes)
		if old := slot[k]; old == nil || s.CreatedAt > old.CreatedAt || s.CreatedAt == old.CreatedAt && s.ID < old.ID {
			slot[k] = s
		}
	}
	for _, s := range slot {
		k := fmt.Sprint(s.Author, "|", s.SubjectTag, "|", s.Subject, "|", s.Kind)
		r.winners[k] = append(r.winners[k], s)
		if s.Kind == validation.KindTrust && s.SubjectTag == 'p' && !slices.Contains(r.about[s.Author], s.Subject) {
			r.about[s.Author] = append(r.about[s.Author], s.Subject)
		}
	}
	for a := range r.about {
		slices.Sort(r.about[a])
	}
	return r
}

// statement is what author says of subject: the narrowest context of the
// chain first, then the scope's rank, then the newest; deletes and
// statements outside their window fall through.
func (r *reference) statement(author string, subj subjectRef2, kind int, ctx, scope string) *validation.Statement {
	slots := r.winners[fmt.Sprint(author, "|", subj.tag, "|", subj.value, "|", kind)]
	for level := ctx; ; {
		var cands []*validation.Statement
		for _, s := range slots {
			if s.Context == level && (scope == "" || len(s.Scopes) == 0 || slices.Contains(s.Scopes, scope)) {
				cands = append(cands, s)
			}
		}
		rank := func(s *validation.Statement) int {
			if (len(s.Scopes) == 0) == (scope == "") {
				return 0
			}
			return 1
		}
		slices.SortFunc(cands, func(a, b *validation.Statement) int {
			if rank(a) != rank(b) {
				return rank(a) - rank(b)
			}
			return int(b.CreatedAt - a.CreatedAt)
		})
		for _, s := range cands {
			if s.Value != "" && (s.ActiveFrom == 0 || r.now >= s.ActiveFrom) && (!s.Expires || r.now <= s.ActiveUntil) {
				return s
			}
		}
		if level == "" {
			return nil
		}
		if i := strings.LastIndex(level, ":"); i >= 0 {
			level = level[:i]
		} else {
			level = ""
		}
	}
}

type refNode struct {
	depth                    int
	queued                   bool
	trust, distrust, neutral int
}

// walk returns the authors whose statements count, with their depths.
func (r *reference) walk(roots []string, ctx, scope string, maxDegree, threshold int) map[string]int {
	nodes := map[string]*refNode{}
	var level []string
	for _, root := range roots {
		if nodes[root] == nil {
			nodes[root] = &refNode{depth: 0, queued: true}
			level = append(level, root)
		}
	}
	follows := func(n string) bool {
		x := nodes[n]
		if x.depth == 0 {
			return true
		}
		scored := x.trust + x.distrust
		return x.queued && scored > 0 && int(math.Floor(float64(100*x.trust)/float64(scored)+0.5)) >= threshold
	}
	for d := 1; d < maxDegree; d++ {
		var next []string
		for _, n := range level {
			if !follows(n) {
				continue
			}
			for _, p := range r.about[n] {
				s := r.statement(n, subjectRef2{'p', p}, validation.KindTrust, ctx, scope)
				if s == nil {
					continue
				}
				x := nodes[p]
				if x == nil {
					x = &refNode{depth: d}
					nodes[p] = x
				} else if x.depth != d {
					continue
				}
				switch s.Value {
				case "1":
					x.trust++
					if !x.queued {
						x.queued = true
						next = append(next, p)
					}
				case "-1":
					x.distrust++
				default:
					x.neutral++
				}
			}
		}
		level = next
	}
	out := map[string]int{}
	for n, x := range nodes {
		if follows(n) {
			out[n] = x.depth
		}
	}
	return out
}

type refAnswer struct {
	verdict  string
	degree   int
	percent  int
	degrees  []DegreeCount
	evidence map[string]int // author -> value
	ratings  Ratings
}

func (r *reference) answer(roots []string, subj subjectRef2, ctx, scope string, band Band) refAnswer {
	out := refAnswer{verdict: VerdictNone, evidence: map[string]int{}}
	byDegree := map[int]*DegreeCount{}
	for author, depth := range r.walk(roots, ctx, scope, band.MaxDegree, band.FollowThreshold) {
		s := r.statement(author, subj, validation.KindTrust, ctx, scope)
		if s == nil || (subj.tag == 'p' && author == subj.value) {
			continue
		}
		v, _ := strconv.Atoi(s.Value)
		out.evidence[author] = v
		d := byDegree[depth+1]
		if d == nil {
			d = &DegreeCount{Degree: depth + 1}
			byDegree[depth+1] = d
		}
		d.Trust += max(v, 0)
		d.Distrust += max(-v, 0)
		if v == 0 {
			d.Neutral++
		}
	}
	for degree := 1; degree <= 6; degree++ {
		if d := byDegree[degree]; d != nil {
			out.degrees = append(out.degrees, *d)
		}
	}
	if len(out.degrees) > 0 {
		near := out.degrees[0]
		out.degree = near.Degree
		if scored := near.Trust + near.Distrust; scored > 0 {
			out.percent = int(math.Floor(float64(100*near.Trust)/float64(scored) + 0.5))
			switch {
			case out.percent >= band.FollowThreshold:
				out.verdict = VerdictTrusted
			case out.percent < band.Red:
				out.verdict = VerdictDistrusted
			default:
				out.verdict = VerdictMixed
			}
		}
	}
	var sum float64
	for author, depth := range r.walk(roots, ctx, scope, band.MaxDegree, 1) {
		s := r.statement(author, subj, validation.KindRating, ctx, scope)
		if s == nil || (subj.tag == 'p' && author == subj.value) {
			continue
		}
		score, _ := strconv.ParseFloat(s.Value, 64)
		out.ratings.Count++
		switch {
		case out.ratings.Averaged == 0 || depth < out.ratings.Depth:
			out.ratings.Depth, out.ratings.Averaged, sum = depth, 1, score
		case depth == out.ratings.Depth:
			out.ratings.Averaged++
			sum += score
		}
	}
	if out.ratings.Averaged > 0 {
		out.ratings.Average = sum / float64(out.ratings.Averaged)
	}
	return out
}

func compareAnswers(got Answer, want refAnswer) string {
	gotPercent := -1
	if got.Percent != nil {
		gotPercent = *got.Percent
	}
	wantPercent := -1
	if want.verdict != VerdictNone {
		wantPercent = want.percent
	}
	switch {
	case got.Verdict != want.verdict:
		return "verdict differs"
	case got.Degree != want.degree || gotPercent != wantPercent:
		return fmt.Sprintf("degree %d percent %d, want %d %d", got.Degree, gotPercent, want.degree, wantPercent)
	case fmt.Sprint(got.Degrees) != fmt.Sprint(want.degrees):
		return "per-degree counts differ"
	case len(got.Evidence) != len(want.evidence):
		return fmt.Sprintf("%d evidence, want %d", len(got.Evidence), len(want.evidence))
	case got.Ratings.Count != want.ratings.Count || got.Ratings.Depth != want.ratings.Depth ||
		got.Ratings.Averaged != want.ratings.Averaged || math.Abs(got.Ratings.Average-want.ratings.Average) > 1e-9:
		return fmt.Sprintf("ratings %+v, want %+v", got.Ratings, want.ratings)
	}
	for _, e := range got.Evidence {
		if v, ok := want.evidence[e.Author]; !ok || v != e.Value {
			return fmt.Sprintf("evidence of %s: %d, want %d (%v)", e.Author, e.Value, v, ok)
		}
	}
	return ""
}
