package resolver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// The cases below are the facts of the extension's own tests
// (src/graph/index-resolver.test.ts, ratings.test.ts, its trust-score and
// follow-band rules at commit 07bf828), stated for this resolver.

// web builds a named web of trust: names are pubkeys, "post:id:N" and
// "user:id:N" are typed subjects.
type web struct {
	t     *testing.T
	ids   map[string]int
	stmts []*validation.Statement
}

func newWeb(t *testing.T) *web { return &web{t: t, ids: map[string]int{}} }

func (w *web) key(name string) string {
	id, ok := w.ids[name]
	if !ok {
		id = 1000 + len(w.ids)
		w.ids[name] = id
	}
	return pk(id)
}

func (w *web) subject(name string) (byte, string) {
	if len(name) > 3 && (name[:3] == "pos" || name[:3] == "use") {
		return 'i', name
	}
	return 'p', w.key(name)
}

// says adds author's 32009 about subject (value "1", "0", "-1" or "" for a
// delete) in context.
func (w *web) says(author, subject, value, ctx string, opts ...func(*validation.Statement)) *web {
	tag, subj := w.subject(subject)
	s := stmt(0, tag, subj, value, ctx, opts...)
	s.Author = w.key(author)
	w.stmts = append(w.stmts, s)
	return w
}

func (w *web) trusts(author string, subjects ...string) *web {
	for _, s := range subjects {
		w.says(author, s, "1", "")
	}
	return w
}

// rates adds author's 32014 score of subject in context.
func (w *web) rates(author, subject, score, ctx string) *web {
	return w.says(author, subject, score, ctx, func(s *validation.Statement) {
		s.Kind, s.Scopes = validation.KindRating, []string{"x.com"}
	})
}

// chain: root -> d1 -> … -> d{hops}; returns the last name.
func (w *web) chain(hops int) string {
	prev := "root"
	for i := 1; i <= hops; i++ {
		next := fmt.Sprintf("d%d", i)
		w.trusts(prev, next)
		prev = next
	}
	return prev
}

func (w *web) resolver(band BandSource, roots ...string) *Resolver {
	limits := settings.DefaultLimits()
	h := heap.New(limits)
	h.Apply(w.stmts, nil)
	keys := make([]string, len(roots))
	for i, r := range roots {
		keys[i] = w.key(r)
	}
	tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: keys})
	tr.Recompute()
	return New(h, tr, nil, band)
}

func (w *web) ask(q Query) Answer {
	w.t.Helper()
	_, q.Subject = w.subject(q.Subject)
	a, err := w.resolver(nil, "root").Resolve(context.Background(), q)
	if err != nil {
		w.t.Fatalf("resolve %+v: %v", q, err)
	}
	return a
}

func intp(i int) *int { return &i }

// untrusted: people the root distrusts or is neutral about, and a stranger,
// all speaking about the post: never evidence (index-resolver.test.ts).
func (w *web) untrusted(value string) *web {
	w.says("root", "foe", "-1", "").says("root", "skip", "0", "")
	if value == "rating" {
		return w.rates("foe", "post:id:42", "100", "").rates("skip", "post:id:42", "100", "").rates("stranger", "post:id:42", "0", "")
	}
	return w.says("foe", "post:id:42", "1", "").says("skip", "post:id:42", "1", "").says("stranger", "post:id:42", "-1", "")
}

// Rule 1: with max degree 4 evidence comes from depths 0..3; depth 4 misses.
func TestExtensionDegreeLadder(t *testing.T) {
	for hops := 0; hops <= 4; hops++ {
		t.Run(fmt.Sprint("hops ", hops), func(t *testing.T) {
			w := newWeb(t).untrusted("trust")
			issuer := "root"
			if hops > 0 {
				issuer = w.chain(hops)
			}
			w.says(issuer, "post:id:42", "1", "")
			a := w.ask(Query{Subject: "post:id:42", FollowThreshold: intp(1)})
			if hops == 4 {
				if a.Verdict != VerdictNone || a.Degree != 0 || len(a.Evidence) != 0 {
					t.Fatalf("depth 4 spoke at max degree 4: %+v", a)
				}
				if b := w.ask(Query{Subject: "post:id:42", MaxDegree: intp(5)}); b.Verdict != VerdictTrusted || b.Degree != 5 {
					t.Fatalf("max degree 5 should reach depth 4: %+v", b)
				}
				return
			}
			if a.Verdict != VerdictTrusted || a.Degree != hops+1 || len(a.Evidence) != 1 || *a.Percent != 100 ||
				!slices.Equal(a.Degrees, []DegreeCount{{Degree: hops + 1, Trust: 1}}) {
				t.Fatalf("answer %+v", a)
			}
			if len(a.Paths) != 1 || len(a.Paths[0]) != hops+1 {
				t.Fatalf("paths %v", a.Paths)
			}
		})
	}
}

func TestExtensionRatingLadder(t *testing.T) {
	for hops := 0; hops <= 4; hops++ {
		w := newWeb(t).untrusted("rating")
		issuer := "root"
		if hops > 0 {
			issuer = w.chain(hops)
		}
		w.rates(issuer, "post:id:42", "40", "")
		a := w.ask(Query{Subject: "post:id:42", Scope: "x.com"})
		want := Ratings{Count: 1, Average: 40, Depth: hops, Averaged: 1}
		if hops == 4 {
			want = Ratings{}
		}
		if a.Ratings != want {
			t.Errorf("hops %d: ratings %+v, want %+v", hops, a.Ratings, want)
		}
	}
}

func TestExtensionOnlyFollowedAuthorsSpeak(t *testing.T) {
	// two trusted hop-1 issuers both count; the distrusted one does not
	w := newWeb(t).trusts("root", "d1", "d1b").untrusted("trust")
	w.says("d1", "post:id:42", "1", "").says("d1b", "post:id:42", "-1", "")
	a := w.ask(Query{Subject: "post:id:42"})
	if a.Degree != 2 || *a.Percent != 50 || a.Verdict != VerdictMixed || len(a.Evidence) != 2 {
		t.Fatalf("two hop-1 issuers: %+v", a)
	}
	// hop-2 evidence is ignored when a trusted hop-1 already hit (listed, not counted)
	w = newWeb(t).untrusted("trust")
	w.chain(2)
	w.says("d1", "post:id:42", "1", "").says("d2", "post:id:42", "-1", "")
	a = w.ask(Query{Subject: "post:id:42"})
	if a.Verdict != VerdictTrusted || a.Degree != 2 || len(a.Evidence) != 2 || !a.Evidence[0].Counted || a.Evidence[1].Counted ||
		!slices.Equal(a.Degrees, []DegreeCount{{Degree: 2, Trust: 1}, {Degree: 3, Distrust: 1}}) {
		t.Fatalf("hop-2 distrust counted: %+v", a)
	}
	// a hop-1 incoming trust onto the root is evidence about the root
	w = newWeb(t).trusts("root", "alice").trusts("alice", "root")
	if a := w.ask(Query{Subject: "root"}); a.Verdict != VerdictTrusted || a.Degree != 2 {
		t.Fatalf("alice's trust in the root: %+v", a)
	}
	// 32014 is never a hop to a rater
	w = newWeb(t).rates("root", "post:id:42", "80", "").rates("d1", "post:id:42", "10", "")
	if a := w.ask(Query{Subject: "post:id:42", Scope: "x.com"}); a.Ratings != (Ratings{Count: 1, Average: 80, Depth: 0, Averaged: 1}) {
		t.Fatalf("ratings %+v", a.Ratings)
	}
}

// Rule 2: a neutral statement is listed, counts for nothing, and still
// closes its degree: farther degrees do not count.
func TestExtensionNeutral(t *testing.T) {
	w := newWeb(t)
	w.chain(2)
	w.says("d1", "post:id:42", "0", "").says("d2", "post:id:42", "1", "")
	a := w.ask(Query{Subject: "post:id:42"})
	if a.Verdict != VerdictNone || a.Degree != 2 || a.Percent != nil || len(a.Evidence) != 2 || a.Evidence[0].Value != 0 || a.Evidence[0].Counted {
		t.Fatalf("only neutral at the nearest degree: %+v", a)
	}
	// neutral beside a trust at one degree: the trust alone decides
	w = newWeb(t).trusts("root", "a", "b")
	w.says("a", "post:id:42", "0", "").says("b", "post:id:42", "1", "")
	if a := w.ask(Query{Subject: "post:id:42"}); a.Verdict != VerdictTrusted || *a.Percent != 100 || a.Degrees[0] != (DegreeCount{Degree: 2, Trust: 1, Neutral: 1}) {
		t.Fatalf("neutral beside trust: %+v", a)
	}
	// a neutral about a person is no hop, and the root's neutral blocks others' trust in them
	w = newWeb(t).trusts("root", "a").says("root", "skip", "0", "").trusts("a", "skip")
	w.says("skip", "post:id:42", "1", "")
	if a := w.ask(Query{Subject: "post:id:42", FollowThreshold: intp(0)}); a.Verdict != VerdictNone {
		t.Fatalf("neutral-reached author spoke: %+v", a)
	}
}

// Rule 2, the nearest statements only neutral, at every depth from the
// root's own: the extension's Score.add records an edge and its degree
// before it looks at the value, so the subject's score holds the neutral
// statements and their degree with count 0 (connected false, resolution
// none), and query.ts lists those edges as statements at that degree. A
// farther degree is refused by the same degree check, whatever it says.
// Ours: verdict none, that degree, the neutral authors listed at their depth
// and not counted; the farther trust listed, not counted.
func TestExtensionNeutralOnlyNearest(t *testing.T) {
	for hops := 0; hops <= 2; hops++ {
		for _, subject := range []string{"post:id:42", "carol"} {
			t.Run(fmt.Sprint(subject, " hops ", hops), func(t *testing.T) {
				w := newWeb(t)
				issuer := "root"
				if hops > 0 {
					issuer = w.chain(hops)
				}
				w.trusts(issuer, "far").says(issuer, subject, "0", "").trusts("far", subject)
				a := w.ask(Query{Subject: subject})
				if a.Verdict != VerdictNone || a.Degree != hops+1 || a.Percent != nil ||
					len(a.Degrees) != 2 || a.Degrees[0] != (DegreeCount{Degree: hops + 1, Neutral: 1}) {
					t.Fatalf("neutral only at degree %d: %+v", hops+1, a)
				}
				near := a.Evidence[0]
				if len(a.Evidence) != 2 || near.Author != w.key(issuer) || near.Depth != hops || near.Value != 0 || near.Counted {
					t.Fatalf("the neutral author is not listed once at depth %d: %+v", hops, a.Evidence)
				}
				if far := a.Evidence[1]; far.Author != w.key("far") || far.Value != 1 || far.Counted {
					t.Fatalf("the farther trust counted or missing: %+v", far)
				}
			})
		}
	}
}

// Rule 3: the follow threshold and the verdict bands.
func TestExtensionFollowThresholdAndBands(t *testing.T) {
	// a 50% peer (a trusts, b distrusts) is followed at threshold 1, not at 75
	mixedPeer := func() *web {
		w := newWeb(t).trusts("root", "a", "b").trusts("a", "peer").says("b", "peer", "-1", "")
		return w.says("peer", "post:id:42", "1", "")
	}
	if a := mixedPeer().ask(Query{Subject: "post:id:42", FollowThreshold: intp(1)}); a.Verdict != VerdictTrusted || a.Degree != 3 {
		t.Fatalf("threshold 1: %+v", a)
	}
	if a := mixedPeer().ask(Query{Subject: "post:id:42"}); a.Verdict != VerdictNone || a.Degree != 0 || a.Band.FollowThreshold != 75 || a.Band.Red != 25 {
		t.Fatalf("threshold 75: %+v", a)
	}
	// the ratings walk follows with threshold 1 whatever the query's threshold
	w := mixedPeer().rates("peer", "post:id:42", "30", "")
	if a := w.ask(Query{Subject: "post:id:42", Scope: "x.com"}); a.Ratings != (Ratings{Count: 1, Average: 30, Depth: 2, Averaged: 1}) {
		t.Fatalf("ratings walk: %+v", a.Ratings)
	}
	// bands at the nearest degree: trusted >= 75, distrusted < 25, mixed between
	for _, c := range []struct {
		trust, distrust int
		percent         int
		want            string
	}{
		{3, 1, 75, VerdictTrusted}, {2, 1, 67, VerdictMixed}, {1, 3, 25, VerdictMixed}, {1, 4, 20, VerdictDistrusted},
		{0, 2, 0, VerdictDistrusted}, {7, 1, 88, VerdictTrusted}, {1, 7, 13, VerdictDistrusted},
	} {
		w := newWeb(t)
		for i := range c.trust + c.distrust {
			name := fmt.Sprint("p", i)
			w.trusts("root", name)
			value := "1"
			if i >= c.trust {
				value = "-1"
			}
			w.says(name, "post:id:42", value, "")
		}
		a := w.ask(Query{Subject: "post:id:42"})
		if a.Verdict != c.want || *a.Percent != c.percent {
			t.Errorf("%d trust %d distrust: %s %d%%, want %s %d%%", c.trust, c.distrust, a.Verdict, *a.Percent, c.want, c.percent)
		}
	}
	// an author trusted by three of four is followed at 75 (round(75) >= 75)
	w = newWeb(t).trusts("root", "a", "b", "c", "d").trusts("a", "peer").trusts("b", "peer").trusts("c", "peer").says("d", "peer", "-1", "")
	w.says("peer", "post:id:42", "-1", "")
	if a := w.ask(Query{Subject: "post:id:42"}); a.Verdict != VerdictDistrusted || a.Degree != 3 {
		t.Fatalf("75%% peer not followed: %+v", a)
	}
}

// Rule 4: the walk hops in the query context, its parents, then global.
func TestExtensionHopsFollowTheQueryContext(t *testing.T) {
	w := newWeb(t).says("root", "alice", "1", "development").says("alice", "post:id:42", "-1", "development")
	if a := w.ask(Query{Subject: "post:id:42", Context: "development:go"}); a.Verdict != VerdictDistrusted || a.Degree != 2 {
		t.Fatalf("development hop: %+v", a)
	}
	if a := w.ask(Query{Subject: "post:id:42"}); a.Verdict != VerdictNone {
		t.Fatalf("a development hop walked in global: %+v", a)
	}
	// the narrowest context answers per author: a development distrust outranks a global trust
	w = newWeb(t).trusts("root", "alice").says("root", "alice", "-1", "development").says("alice", "post:id:42", "1", "")
	if a := w.ask(Query{Subject: "post:id:42", Context: "development"}); a.Verdict != VerdictNone {
		t.Fatalf("alice followed in development: %+v", a)
	}
	if a := w.ask(Query{Subject: "post:id:42", Context: "identity"}); a.Verdict != VerdictTrusted {
		t.Fatalf("identity query sees the global hop: %+v", a)
	}
	// identity p-hops onto identity user:id evidence (the X timeline)
	w = newWeb(t).says("root", "alice", "1", "identity").says("alice", "user:id:44196397", "1", "identity")
	if a := w.ask(Query{Subject: "user:id:44196397", Context: "identity"}); a.Verdict != VerdictTrusted || a.Degree != 2 {
		t.Fatalf("identity hop: %+v", a)
	}
}

// Rule 5, ratings.test.ts: the operator's own rating wins; hop-1 ratings
// average (0 included) when the operator has none; distrusted raters never count.
func TestExtensionRatings(t *testing.T) {
	w := newWeb(t).trusts("root", "alice").says("root", "bob", "-1", "")
	w.rates("root", "post:id:42", "80", "").rates("alice", "post:id:42", "0", "").rates("bob", "post:id:42", "100", "")
	if a := w.ask(Query{Subject: "post:id:42", Scope: "x.com"}); a.Ratings != (Ratings{Count: 2, Average: 80, Depth: 0, Averaged: 1}) {
		t.Fatalf("operator rating: %+v", a.Ratings)
	}
	w = newWeb(t).trusts("root", "alice", "bob", "carol").says("root", "dave", "-1", "")
	w.rates("alice", "post:id:42", "80", "").rates("bob", "post:id:42", "40", "").rates("carol", "post:id:42", "0", "").rates("dave", "post:id:42", "100", "")
	if a := w.ask(Query{Subject: "post:id:42", Scope: "x.com"}); a.Ratings != (Ratings{Count: 3, Average: 40, Depth: 1, Averaged: 3}) {
		t.Fatalf("hop-1 average: %+v", a.Ratings)
	}
	// the product context answers with alice's product rating, else her global one
	w = newWeb(t).trusts("root", "alice").rates("alice", "post:id:42", "80", "").rates("alice", "post:id:42", "20", "product")
	for ctx, want := range map[string]float64{"": 80, "product": 20, "product:phones": 20, "music": 80} {
		if a := w.ask(Query{Subject: "post:id:42", Context: ctx, Scope: "x.com"}); a.Ratings.Count != 1 || a.Ratings.Average != want {
			t.Errorf("context %q: %+v, want %v", ctx, a.Ratings, want)
		}
	}
}

// The knobs: settings give the defaults, a query overrides them.
func TestBandOverridesAndChecks(t *testing.T) {
	w := newWeb(t).trusts("root", "a", "b")
	w.says("a", "post:id:42", "1", "").says("b", "post:id:42", "-1", "")
	r := w.resolver(func() Band { return Band{MaxDegree: 3, FollowThreshold: 50, Red: 10} }, "root")
	ask := func(q Query) (Answer, error) {
		q.Subject = "post:id:42"
		return r.Resolve(context.Background(), q)
	}
	if a, err := ask(Query{}); err != nil || a.Verdict != VerdictTrusted || a.Band != (Band{3, 50, 10}) {
		t.Fatalf("settings band: %+v %v", a, err)
	}
	if a, err := ask(Query{FollowThreshold: intp(51)}); err != nil || a.Verdict != VerdictMixed {
		t.Fatalf("threshold 51: %+v %v", a, err)
	}
	if a, err := ask(Query{FollowThreshold: intp(60), Red: intp(70)}); err != nil || a.Band.Red != 60 || a.Verdict != VerdictDistrusted {
		t.Fatalf("red above the threshold is lowered to it: %+v %v", a, err)
	}
	for _, q := range []Query{{MaxDegree: intp(0)}, {MaxDegree: intp(6)}, {FollowThreshold: intp(101)}, {Red: intp(-1)}} {
		if _, err := ask(q); !errors.Is(err, ErrBand) {
			t.Errorf("%+v: err %v, want ErrBand", q, err)
		}
	}
}
