package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

func pk(i int) string { return fmt.Sprintf("%064x", i) }

var evSeq int

func stmt(author int, tag byte, subject, value, ctx string, opts ...func(*validation.Statement)) *validation.Statement {
	evSeq++
	s := &validation.Statement{
		Kind: validation.KindTrust, ID: fmt.Sprintf("%064x", 1<<60+evSeq), Author: pk(author), CreatedAt: 1,
		SubjectTag: tag, Subject: subject, Value: value, Context: ctx,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func hop(a, b int) *validation.Statement { return stmt(a, 'p', pk(b), "1", "") }

type staticCoverage []string

func (c staticCoverage) SyncCoverage() []string { return c }

type fixture struct {
	heap    *heap.Heap
	tracker *frontier.Tracker
	res     *Resolver
}

// newFixture: root 1 trusts 2, 2 trusts 3; 8 and 9 are outside the frontier.
func newFixture(t *testing.T, limits settings.Limits, cov CoverageSource, stmts ...*validation.Statement) *fixture {
	t.Helper()
	h := heap.New(limits)
	h.Apply(append([]*validation.Statement{hop(1, 2), hop(2, 3), hop(8, 9)}, stmts...), nil)
	tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: []string{pk(1)}})
	tr.Recompute()
	return &fixture{heap: h, tracker: tr, res: New(h, tr, cov, nil)}
}

func (f *fixture) resolve(t *testing.T, q Query) Answer {
	t.Helper()
	a, err := f.res.Resolve(context.Background(), q)
	if err != nil {
		t.Fatalf("resolve %+v: %v", q, err)
	}
	return a
}

func TestVerdicts(t *testing.T) {
	subj := "user:id:77"
	cases := []struct {
		name  string
		stmts []*validation.Statement
		want  string
	}{
		{"trusted", []*validation.Statement{stmt(2, 'i', subj, "1", ""), stmt(3, 'i', subj, "0", "")}, VerdictTrusted},
		{"distrusted", []*validation.Statement{stmt(3, 'i', subj, "-1", "")}, VerdictDistrusted},
		{"mixed", []*validation.Statement{hop(1, 4), stmt(2, 'i', subj, "1", ""), stmt(4, 'i', subj, "-1", "")}, VerdictMixed},
		// issue 9 item 13: the nearest depth with evidence decides
		{"nearest depth decides", []*validation.Statement{stmt(1, 'i', subj, "1", ""), stmt(3, 'i', subj, "-1", "")}, VerdictTrusted},
		{"nearest depth decides, farther trust listed only", []*validation.Statement{stmt(2, 'i', subj, "-1", ""), stmt(3, 'i', subj, "1", "")}, VerdictDistrusted},
		{"only neutral is none", []*validation.Statement{stmt(2, 'i', subj, "0", "")}, VerdictNone},
		{"none without statements", nil, VerdictNone},
		{"authors outside the frontier are not evidence", []*validation.Statement{stmt(8, 'i', subj, "1", ""), stmt(9, 'i', subj, "-1", "")}, VerdictNone},
		{"deleted statement is no evidence", []*validation.Statement{stmt(2, 'i', subj, "", "")}, VerdictNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, settings.DefaultLimits(), nil, c.stmts...)
			if a := f.resolve(t, Query{Subject: subj}); a.Verdict != c.want {
				t.Fatalf("verdict %s, want %s (evidence %+v)", a.Verdict, c.want, a.Evidence)
			}
		})
	}
}

func TestEvidencePathsAndSanitising(t *testing.T) {
	withText := func(s *validation.Statement) {
		s.Content = "<b>careful</b>\u202e now"
		s.Labels = []validation.Label{{Name: "scam", Description: "<i>seen</i> twice"}}
	}
	f := newFixture(t, settings.DefaultLimits(), nil,
		stmt(3, 'p', pk(50), "-1", "finance", withText),
		stmt(1, 'p', pk(50), "1", ""),
		stmt(1, 'p', pk(50), "", "finance:loans"), // deleted narrow slot falls through to global
	)
	a := f.resolve(t, Query{Subject: pk(50), Context: "finance:loans"})
	// the root (depth 0) decides; the distrust at depth 2 is still listed (issue 9 item 13)
	if a.Verdict != VerdictTrusted || len(a.Evidence) != 2 {
		t.Fatalf("answer %+v", a)
	}
	root, far := a.Evidence[0], a.Evidence[1]
	if root.Author != pk(1) || root.Depth != 0 || root.Value != 1 || root.Context != "" {
		t.Fatalf("root evidence %+v", root)
	}
	if far.Author != pk(3) || far.Depth != 2 || far.Value != -1 || far.Context != "finance" || far.Subject != pk(50) ||
		far.Content != "careful now" || len(far.Labels) != 1 || far.Labels[0].Description != "seen twice" || len(far.EventID) != 64 {
		t.Fatalf("far evidence %+v", far)
	}
	want := [][]string{{pk(1)}, {pk(1), pk(2), pk(3)}}
	if fmt.Sprint(a.Paths) != fmt.Sprint(want) {
		t.Fatalf("paths %v, want %v", a.Paths, want)
	}
	if a.GraphVersion != f.heap.Version() || a.Coverage.State != "complete" || len(a.Coverage.Reasons) != 0 {
		t.Fatalf("version %d coverage %+v", a.GraphVersion, a.Coverage)
	}
}

// Ratings come from the authors the ratings walk follows, in the query
// context, its parents, then global (issue 18 rule 5: the extension's code).
func TestRatingsFromFollowedAuthorsWithContextFallback(t *testing.T) {
	subj := "post:id:5"
	r := func(author int, score, ctx string) *validation.Statement {
		s := stmt(author, 'i', subj, score, ctx)
		s.Kind, s.Scopes = validation.KindRating, []string{"x.com"}
		return s
	}
	f := newFixture(t, settings.DefaultLimits(), nil,
		r(1, "80", "news"), r(2, "40", "news"), r(3, "", "news"), // a deleted rating falls through to 3's global one
		r(3, "100", ""), r(9, "0", "news"), // 9 is outside the walk
	)
	a := f.resolve(t, Query{Subject: subj, Context: "news", Scope: "x.com"})
	// all three counted; the average is the nearest depth's: the root's (issue 9 item 13)
	if a.Ratings != (Ratings{Count: 3, Average: 80, Depth: 0, Averaged: 1}) {
		t.Fatalf("ratings %+v", a.Ratings)
	}
	if a.Verdict != VerdictNone {
		t.Fatalf("ratings must not make a verdict: %s", a.Verdict)
	}
	if a := f.resolve(t, Query{Subject: subj, Context: "news:local", Scope: "x.com"}); a.Ratings != (Ratings{Count: 3, Average: 80, Depth: 0, Averaged: 1}) {
		t.Fatalf("news:local did not fall back to news: %+v", a.Ratings)
	}
	if a := f.resolve(t, Query{Subject: subj, Context: "sport", Scope: "x.com"}); a.Ratings != (Ratings{Count: 1, Average: 100, Depth: 2, Averaged: 1}) {
		t.Fatalf("sport falls back to global only: %+v", a.Ratings)
	}
	// Decimals reach the average (issue 9 item 1).
	newer := []*validation.Statement{r(1, "50.5", "news"), r(2, "40.25", "news"), hop(1, 4), r(4, "40.25", "news")}
	for _, s := range newer {
		s.CreatedAt = 2
	}
	f.heap.Apply(newer, nil)
	f.tracker.Recompute()
	if a := f.resolve(t, Query{Subject: subj, Context: "news", Scope: "x.com"}); a.Ratings.Average != 50.5 {
		t.Fatalf("decimal ratings %+v, want the root's 50.5", a.Ratings)
	}
	// without the root's rating, depth 1 averages: 2 and 4
	f.heap.Apply([]*validation.Statement{func() *validation.Statement { s := r(1, "", "news"); s.CreatedAt = 3; return s }()}, nil)
	if a := f.resolve(t, Query{Subject: subj, Context: "news", Scope: "x.com"}); a.Ratings != (Ratings{Count: 3, Average: 40.25, Depth: 1, Averaged: 2}) {
		t.Fatalf("ratings %+v, want depth 1's two averaged", a.Ratings)
	}
}

func TestSubjectForms(t *testing.T) {
	event := pk(600)
	f := newFixture(t, settings.DefaultLimits(), nil,
		stmt(2, 'p', pk(3), "-1", "x"),
		stmt(2, 'e', event, "-1", ""),
		stmt(2, 'i', "post:id:12", "1", ""),
	)
	npub, err := validation.EncodeNpub(pk(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ subject, context, want, canonical string }{
		{pk(3), "x", VerdictDistrusted, pk(3)},
		{strings.ToUpper(pk(3)), "x", VerdictDistrusted, pk(3)},
		{npub, "x", VerdictDistrusted, pk(3)},
		{event, "", VerdictDistrusted, event},
		{"post:id:12", "", VerdictTrusted, "post:id:12"},
		{"user:id:12", "", VerdictNone, "user:id:12"},
	} {
		a := f.resolve(t, Query{Subject: c.subject, Context: c.context})
		if a.Verdict != c.want || a.Subject != c.canonical {
			t.Errorf("%s: verdict %s subject %s, want %s %s", c.subject, a.Verdict, a.Subject, c.want, c.canonical)
		}
	}
	for _, bad := range []string{"", "npub1notakey", "user:id:12a", "post:id:", "abc", "hello world:x"} {
		if _, err := f.res.Resolve(context.Background(), Query{Subject: bad}); !errors.Is(err, ErrSubject) {
			t.Errorf("%q: err %v, want ErrSubject", bad, err)
		}
	}
}

func TestBoundIdentityAndPendingClaims(t *testing.T) {
	const acct = "user:id:4242"
	owner := pk(70)
	hinted := func(s *validation.Statement) { s.BoundHints, s.Scopes = []string{owner}, []string{"x.com"} }
	f := newFixture(t, settings.DefaultLimits(), nil,
		stmt(2, 'i', acct, "1", "", hinted),
		stmt(3, 'p', owner, "-1", ""),
	)
	// Pending: statements about the pubkey and the account stay apart, and
	// the answer says it depends on a claim not fetched yet.
	for _, subj := range []string{acct, owner} {
		a := f.resolve(t, Query{Subject: subj})
		if len(a.Evidence) != 1 || !slices.Contains(a.Coverage.Reasons, status.ReasonClaimsPending) || a.Coverage.State != "partial" {
			t.Fatalf("%s pending: evidence %+v coverage %+v", subj, a.Evidence, a.Coverage)
		}
		if len(a.Bindings) != 1 || a.Bindings[0].State != heap.StatePending {
			t.Fatalf("%s bindings %+v", subj, a.Bindings)
		}
	}
	// Bound: one identity, both statements, and the account is a hop.
	f.heap.Apply(nil, []*validation.Claims{{ID: pk(71), Author: owner, CreatedAt: 5, TwitterIDs: []string{"4242"}}})
	f.tracker.Recompute()
	for _, subj := range []string{acct, owner} {
		a := f.resolve(t, Query{Subject: subj})
		// 2 (depth 1) trusts the account, 3 (depth 2) distrusts the key: the nearer decides (item 13)
		if a.Verdict != VerdictTrusted || len(a.Evidence) != 2 || a.Coverage.State != "complete" {
			t.Fatalf("%s bound: verdict %s evidence %+v coverage %+v", subj, a.Verdict, a.Evidence, a.Coverage)
		}
	}
	if d, ok := f.tracker.Current().Depth(owner); !ok || d != 2 {
		t.Fatalf("bound account not a hop: depth %d %v", d, ok)
	}
	// Fetched and unclaimed: no longer pending.
	f.heap.Apply([]*validation.Statement{stmt(2, 'i', "user:id:5", "1", "", func(s *validation.Statement) { s.BoundHints, s.Scopes = []string{pk(72)}, []string{"x.com"} })}, nil)
	if a := f.resolve(t, Query{Subject: "user:id:5"}); !slices.Contains(a.Coverage.Reasons, status.ReasonClaimsPending) {
		t.Fatalf("expected pending: %+v", a.Coverage)
	}
	f.heap.ClaimsFetched([]string{pk(72)})
	if a := f.resolve(t, Query{Subject: "user:id:5"}); a.Coverage.State != "complete" || a.Bindings[0].State != heap.StateUnclaimed {
		t.Fatalf("after fetch: %+v %+v", a.Coverage, a.Bindings)
	}
}

// A claim that binds an X account changes whom the walk follows: an answer
// right after it, with the walk of the question before in the cache, follows
// the new owner (the claim's commit changed what the cached walk read).
// Seen failing while claims did not mark the account's speakers changed.
func TestAnswerFollowsANewBindingAtOnce(t *testing.T) {
	const acct = "user:id:4242"
	owner := pk(70)
	f := newFixture(t, settings.DefaultLimits(), nil,
		stmt(1, 'i', acct, "1", "", func(s *validation.Statement) { s.BoundHints, s.Scopes = []string{owner}, []string{"x.com"} }),
		stmt(70, 'p', pk(80), "1", ""),
	)
	if a := f.resolve(t, Query{Subject: pk(80)}); a.Verdict != VerdictNone {
		t.Fatalf("before the claim: %s %+v", a.Verdict, a.Evidence)
	}
	f.heap.Apply(nil, []*validation.Claims{{ID: pk(71), Author: owner, CreatedAt: 5, TwitterIDs: []string{"4242"}}})
	if a := f.resolve(t, Query{Subject: pk(80)}); a.Verdict != VerdictTrusted || len(a.Evidence) != 1 || a.Evidence[0].Author != owner {
		t.Fatalf("after the claim: %s %+v", a.Verdict, a.Evidence)
	}
}

func TestCoverageReasons(t *testing.T) {
	cov := staticCoverage{"never-synced", "relay-failed:wss://r.example"}
	f := newFixture(t, settings.DefaultLimits(), cov)
	a := f.resolve(t, Query{Subject: pk(3)})
	if a.Coverage.State != "partial" || !slices.Equal(a.Coverage.Reasons, []string(cov)) {
		t.Fatalf("coverage %+v", a.Coverage)
	}

	l := settings.DefaultLimits()
	l.MaxDepth = 1
	l.HeapNodeLimit = 3
	f = newFixture(t, l, nil) // 8->9 does not fit: heap at limit; depth 1 cuts author 3
	a = f.resolve(t, Query{Subject: pk(9)})
	want := []string{status.ReasonFrontierTruncated, status.ReasonHeapLimit}
	if !slices.Equal(a.Coverage.Reasons, want) || fmt.Sprint(a.Truncation) != fmt.Sprint([]status.Truncation{{Reason: status.ReasonMaxDepth, Cut: 1}}) {
		t.Fatalf("coverage %+v truncation %v", a.Coverage, a.Truncation)
	}
	if a.Verdict != VerdictNone {
		t.Fatalf("missing data reported as %s", a.Verdict)
	}
}

func TestQueryRootsAreForThatQueryOnly(t *testing.T) {
	f := newFixture(t, settings.DefaultLimits(), nil, stmt(9, 'i', "user:id:1", "-1", ""))
	if a := f.resolve(t, Query{Subject: "user:id:1"}); a.Verdict != VerdictNone {
		t.Fatalf("without extra root: %s", a.Verdict)
	}
	a := f.resolve(t, Query{Subject: "user:id:1", Roots: []string{pk(8)}})
	if a.Verdict != VerdictDistrusted || a.Evidence[0].Depth != 1 || fmt.Sprint(a.Paths) != fmt.Sprint([][]string{{pk(8), pk(9)}}) {
		t.Fatalf("with extra root: %+v", a)
	}
	if _, in := f.tracker.Current().Depth(pk(8)); in {
		t.Fatal("query root joined the frontier")
	}
}

func TestAnswerJSONShape(t *testing.T) {
	f := newFixture(t, settings.DefaultLimits(), nil)
	a := f.resolve(t, Query{Subject: "user:id:3"})
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"verdict", "evidence", "paths", "ratings", "graphVersion", "computeMicros", "truncation", "coverage"} {
		if v, ok := m[key]; !ok || v == nil {
			t.Errorf("answer JSON lacks %q (or it is null): %s", key, raw)
		}
	}
	if cov := m["coverage"].(map[string]any); cov["state"] != "complete" || cov["reasons"] == nil {
		t.Errorf("coverage %v", cov)
	}
}

// A warmed resolver answers a question from the configured roots in the
// scope it was warmed for with the walks it made, and a question in
// another scope walks its own.
func TestWarmWalksTheFirstQuestionsWalks(t *testing.T) {
	f := newFixture(t, settings.DefaultLimits(), nil)
	f.res.Warm(f.tracker.Roots(), "x.com")
	if got := f.res.walks.computed.Load(); got != 2 {
		t.Fatalf("warming computed %d walks, want 2 (trust, ratings)", got)
	}
	if a := f.resolve(t, Query{Subject: pk(3), Scope: "x.com"}); a.Verdict != "trusted" {
		t.Fatalf("verdict %q", a.Verdict)
	}
	if got := f.res.walks.computed.Load(); got != 2 {
		t.Fatalf("the question after warming computed %d walks more", got-2)
	}
	f.resolve(t, Query{Subject: pk(3)})
	if got := f.res.walks.computed.Load(); got != 4 {
		t.Fatalf("a question in another scope computed %d walks, want 2", got-2)
	}
}
