package heap

import (
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"testing"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// pk is a deterministic hex pubkey (or event id) for test number i.
func pk(i int) string { return fmt.Sprintf("%064x", i) }

var evSeq int

// st builds a 32009 statement; opts adjust it.
func st(author, tag, subject, value, ctx string, created int64, opts ...func(*validation.Statement)) *validation.Statement {
	evSeq++
	s := &validation.Statement{
		Kind: validation.KindTrust, ID: fmt.Sprintf("%064x", 1<<40+evSeq), Author: author, CreatedAt: created,
		SubjectTag: tag[0], Subject: subject, Value: value, Context: ctx,
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// window sets x and y; y = 0 here means no y (see TestYZeroHasExpired).
func window(x, y int64) func(*validation.Statement) {
	return func(s *validation.Statement) { s.ActiveFrom, s.ActiveUntil, s.Expires = x, y, y != 0 }
}
func scopes(sc ...string) func(*validation.Statement) {
	return func(s *validation.Statement) { s.Scopes = sc }
}

// hints names pubkeys on an x.com-scoped statement: the shape whose hints
// may bind (bindingShaped).
func hints(h ...string) func(*validation.Statement) {
	return func(s *validation.Statement) { s.BoundHints, s.Scopes = h, []string{xScope} }
}

// anyone trusts every author's hints.
func anyone(NodeID) bool             { return true }
func rating(s *validation.Statement) { s.Kind = validation.KindRating }

func newHeap() *Heap { return New(settings.DefaultLimits()) }

// resolve returns author's effective value about subject, or "none".
func resolve(h *Heap, author, tag, subject string, kind int, ctx, scope string, now int64) string {
	out := "none"
	h.View(func(v View) {
		sn, ok := v.Subject(tag[0], subject)
		if !ok {
			return
		}
		an, _ := v.Pubkey(author)
		for _, ev := range v.Statements(sn, kind, ctx, scope, now, func(a NodeID) bool { return a == an }) {
			out = fmt.Sprintf("%d@%q", ev.Value, ev.Context)
			if kind == validation.KindRating {
				out = fmt.Sprintf("%g@%q", ev.Score, ev.Context)
			}
		}
	})
	return out
}

func TestContextFallback(t *testing.T) {
	a, s := pk(1), pk(2)
	const now = 1000
	cases := []struct {
		name  string
		stmts []*validation.Statement
		query string
		want  string
	}{
		{"exact slot answers", []*validation.Statement{st(a, "p", s, "1", "a:b", 1), st(a, "p", s, "-1", "a", 1)}, "a:b", `1@"a:b"`},
		{"missing exact falls to parent", []*validation.Statement{st(a, "p", s, "-1", "a", 1), st(a, "p", s, "1", "", 1)}, "a:b", `-1@"a"`},
		{"missing exact and parent falls to global", []*validation.Statement{st(a, "p", s, "1", "", 1)}, "a:b:c", `1@""`},
		{"delete falls through to parent", []*validation.Statement{st(a, "p", s, "", "a:b", 1), st(a, "p", s, "-1", "a", 1)}, "a:b", `-1@"a"`},
		{"expired falls through to global", []*validation.Statement{st(a, "p", s, "-1", "a", 1, window(0, now-1)), st(a, "p", s, "1", "", 1)}, "a", `1@""`},
		{"not yet active falls through", []*validation.Statement{st(a, "p", s, "-1", "a", 1, window(now+1, 0)), st(a, "p", s, "1", "", 1)}, "a", `1@""`},
		{"neutral occupies its slot", []*validation.Statement{st(a, "p", s, "0", "a:b", 1), st(a, "p", s, "1", "a", 1), st(a, "p", s, "1", "", 1)}, "a:b", `0@"a:b"`},
		{"distrust answers", []*validation.Statement{st(a, "p", s, "-1", "", 1)}, "", `-1@""`},
		{"sibling context is not a parent", []*validation.Statement{st(a, "p", s, "1", "a:c", 1)}, "a:b", "none"},
		{"global query ignores narrower slots", []*validation.Statement{st(a, "p", s, "1", "a", 1)}, "", "none"},
		{"all deleted is none", []*validation.Statement{st(a, "p", s, "", "a", 1), st(a, "p", s, "", "", 1)}, "a", "none"},
		{"prefix must end at a segment", []*validation.Statement{st(a, "p", s, "1", "ab", 1)}, "ab:c", `1@"ab"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHeap()
			h.Apply(c.stmts, nil)
			if got := resolve(h, a, "p", s, validation.KindTrust, c.query, "", now); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestRatingsFallBackToBroaderContexts(t *testing.T) {
	a := pk(1)
	h := newHeap()
	h.Apply([]*validation.Statement{
		st(a, "i", "user:id:7", "80", "a", 1, rating, scopes("x.com")),
		st(a, "i", "user:id:7", "1", "a:b", 1), // a 32009 slot never answers a rating query
		st(a, "i", "user:id:8", "40", "", 1, rating, scopes("x.com")),
		st(a, "i", "user:id:8", "60", "a", 1, rating, scopes("x.com")),
	}, nil)
	// The extension's rating query walks context, parents, global (its code;
	// its NIP-32014 text says exact context only).
	for _, c := range []struct{ subject, ctx, want string }{
		{"user:id:7", "a", `80@"a"`}, {"user:id:7", "a:b", `80@"a"`}, {"user:id:7", "", "none"},
		{"user:id:8", "a:b", `60@"a"`}, {"user:id:8", "b", `40@""`}, {"user:id:8", "", `40@""`},
	} {
		if got := resolve(h, a, "i", c.subject, validation.KindRating, c.ctx, "x.com", 10); got != c.want {
			t.Errorf("rating of %s at %q: got %s, want %s", c.subject, c.ctx, got, c.want)
		}
	}
}

func TestScopePreference(t *testing.T) {
	a, subj := pk(1), "user:id:5"
	cases := []struct {
		name  string
		stmts []*validation.Statement
		scope string
		want  string
	}{
		{"x.com precedes empty", []*validation.Statement{st(a, "i", subj, "-1", "", 1, scopes("x.com")), st(a, "i", subj, "1", "", 2)}, "x.com", `-1@""`},
		{"deleted x.com falls to empty at the same level", []*validation.Statement{st(a, "i", subj, "", "", 1, scopes("x.com")), st(a, "i", subj, "1", "", 2)}, "x.com", `1@""`},
		{"multi-scope slot matches", []*validation.Statement{st(a, "i", subj, "1", "", 1, scopes("twitter.com", "x.com"))}, "x.com", `1@""`},
		{"other scope excluded", []*validation.Statement{st(a, "i", subj, "1", "", 1, scopes("nostr"))}, "x.com", "none"},
		{"no query scope prefers empty", []*validation.Statement{st(a, "i", subj, "-1", "", 1, scopes("x.com")), st(a, "i", subj, "1", "", 1)}, "", `1@""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHeap()
			h.Apply(c.stmts, nil)
			if got := resolve(h, a, "i", subj, validation.KindTrust, "", c.scope, 10); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestWindowEdgesInclusive(t *testing.T) {
	a, s := pk(1), pk(2)
	cases := []struct {
		x, y, now int64
		active    bool
	}{
		{100, 200, 99, false}, {100, 200, 100, true}, {100, 200, 200, true}, {100, 200, 201, false},
		{100, 0, 99, false}, {100, 0, 1 << 40, true}, {0, 200, 0, true}, {0, 200, 201, false},
		{150, 150, 150, true}, {150, 150, 151, false},
	}
	for _, c := range cases {
		h := newHeap()
		h.Apply([]*validation.Statement{st(a, "p", s, "1", "", 1, window(c.x, c.y))}, nil)
		got := resolve(h, a, "p", s, validation.KindTrust, "", "", c.now) != "none"
		var hops []NodeID
		h.View(func(v View) {
			an, _ := v.Pubkey(a)
			hops, _ = v.Hops(an, c.now, anyone, nil)
		})
		if got != c.active || (len(hops) == 1) != c.active {
			t.Errorf("x=%d y=%d now=%d: active=%v hops=%d, want %v", c.x, c.y, c.now, got, len(hops), c.active)
		}
	}
}

func TestReplacedWinnerNeverRevived(t *testing.T) {
	a, s := pk(1), pk(2)
	lowID := func(st *validation.Statement) { st.ID = pk(3) }
	highID := func(st *validation.Statement) { st.ID = pk(4) }
	cases := []struct {
		name  string
		order []*validation.Statement
		want  string
	}{
		{"older trust after newer delete", []*validation.Statement{st(a, "p", s, "", "", 20), st(a, "p", s, "1", "", 10)}, "none"},
		{"older distrust after newer trust", []*validation.Statement{st(a, "p", s, "1", "", 20), st(a, "p", s, "-1", "", 10)}, `1@""`},
		{"older trust after newer neutral", []*validation.Statement{st(a, "p", s, "0", "", 20), st(a, "p", s, "1", "", 10)}, `0@""`},
		{"newer replaces", []*validation.Statement{st(a, "p", s, "1", "", 10), st(a, "p", s, "-1", "", 20)}, `-1@""`},
		{"tie goes to lower id", []*validation.Statement{st(a, "p", s, "1", "", 10, highID), st(a, "p", s, "-1", "", 10, lowID)}, `-1@""`},
		{"tie keeps held lower id", []*validation.Statement{st(a, "p", s, "-1", "", 10, lowID), st(a, "p", s, "1", "", 10, highID)}, `-1@""`},
		{"expired newer winner hides older", []*validation.Statement{st(a, "p", s, "1", "", 20, window(0, 5)), st(a, "p", s, "1", "", 10)}, "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHeap()
			for _, s := range c.order {
				h.Apply([]*validation.Statement{s}, nil)
			}
			if got := resolve(h, a, "p", s, validation.KindTrust, "", "", 100); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
			if h.Stats().Edges != 1 {
				t.Fatalf("one slot must hold one edge, got %d", h.Stats().Edges)
			}
		})
	}
}

func TestVersionCountsAppliedChangesOnly(t *testing.T) {
	a, s := pk(1), pk(2)
	h := newHeap()
	newer := st(a, "p", s, "1", "", 20)
	if c := h.Apply([]*validation.Statement{newer, st(a, "p", pk(3), "1", "", 1)}, nil); c.Applied != 2 || !c.HopsChanged {
		t.Fatalf("change = %+v", c)
	}
	if h.Version() != 2 {
		t.Fatalf("version %d, want 2", h.Version())
	}
	if c := h.Apply([]*validation.Statement{newer, st(a, "p", s, "-1", "", 10)}, nil); c.Applied != 0 || c.HopsChanged {
		t.Fatalf("duplicate and older applied: %+v", c)
	}
	if h.Version() != 2 {
		t.Fatalf("version moved on ignored input: %d", h.Version())
	}
	// Replacing a hop with distrust removes a hop; evidence-only changes do not.
	if c := h.Apply([]*validation.Statement{st(a, "p", s, "-1", "", 30)}, nil); !c.HopsChanged {
		t.Fatal("losing a hop must report HopsChanged")
	}
	if c := h.Apply([]*validation.Statement{st(a, "i", "post:id:9", "1", "", 1)}, nil); c.HopsChanged {
		t.Fatal("post subject is never a hop")
	}
}

func hopsOf(h *Heap, author string, now int64) []string {
	var out []string
	h.View(func(v View) {
		n, ok := v.Pubkey(author)
		if !ok {
			return
		}
		ids, _ := v.Hops(n, now, anyone, nil)
		for _, id := range ids {
			out = append(out, v.Text(id))
		}
	})
	slices.Sort(out)
	return out
}

func TestOnlyActivePositivePubkeyStatementsAreHops(t *testing.T) {
	a := pk(1)
	h := newHeap()
	h.Apply([]*validation.Statement{
		st(a, "p", pk(10), "1", "", 1),
		st(a, "p", pk(11), "0", "", 1),
		st(a, "p", pk(12), "-1", "", 1),
		st(a, "p", pk(13), "", "", 1),
		st(a, "p", pk(14), "1", "", 1, window(0, 5)),
		st(a, "p", pk(15), "1", "identity", 1),
		st(a, "p", pk(20), "1", "development", 1),   // evidence, not a hop (issue 9 item 12)
		st(a, "p", pk(21), "1", "identity:work", 1), // likewise
		st(a, "e", pk(16), "1", "", 1),
		st(a, "i", "post:id:17", "1", "", 1),
		st(a, "i", "user:id:18", "1", "", 1), // unbound X account
		st(a, "p", pk(19), "90", "", 1, rating, scopes("x.com")),
	}, nil)
	want := []string{pk(10), pk(15)}
	if got := hopsOf(h, a, 100); !slices.Equal(got, want) {
		t.Fatalf("hops %v, want %v", got, want)
	}
}

// Issue 18 rule 6: hops rank an author's slots about one subject in one
// context as answers do, so an active x.com distrust outranks an unscoped
// trust, and an inactive x.com statement falls through to the unscoped one.
func TestHopsFollowScopePrecedence(t *testing.T) {
	a := pk(1)
	h := newHeap()
	h.Apply([]*validation.Statement{
		st(a, "p", pk(10), "1", "", 1),
		st(a, "p", pk(10), "-1", "", 1, scopes("x.com")), // outranks: no hop
		st(a, "p", pk(11), "1", "", 1),
		st(a, "p", pk(11), "-1", "", 1, scopes("x.com"), window(0, 50)), // expired at 100: falls through
		st(a, "p", pk(12), "1", "", 1),
		st(a, "p", pk(12), "0", "", 1, scopes("x.com")), // neutral answers too: no hop
		st(a, "p", pk(13), "-1", "", 1),
		st(a, "p", pk(13), "1", "", 1, scopes("x.com")), // x.com trust: hop
		st(a, "p", pk(14), "1", "", 1),
		st(a, "p", pk(14), "", "", 2, scopes("x.com")), // a delete falls through
		st(a, "p", pk(15), "-1", "identity", 1, scopes("x.com")),
		st(a, "p", pk(15), "1", "", 1), // global and identity are separate hop contexts
	}, nil)
	want := []string{pk(11), pk(13), pk(14), pk(15)}
	if got := hopsOf(h, a, 100); !slices.Equal(got, want) {
		t.Fatalf("hops %v, want %v", got, want)
	}
	if got := hopsOf(h, a, 40); !slices.Equal(got, []string{pk(13), pk(14), pk(15)}) {
		t.Fatalf("hops at 40 (x.com distrust of pk(11) active) %v", got)
	}
}

// A scoped statement of any value can unmake a hop, so applying one asks for
// a new frontier walk.
func TestScopedDistrustChangesHops(t *testing.T) {
	a := pk(1)
	h := newHeap()
	h.Apply([]*validation.Statement{st(a, "p", pk(10), "1", "", 1)}, nil)
	if c := h.Apply([]*validation.Statement{st(a, "p", pk(10), "-1", "", 2, scopes("x.com"))}, nil); !c.HopsChanged {
		t.Fatal("an x.com distrust outranking a hop did not report HopsChanged")
	}
	if c := h.Apply([]*validation.Statement{st(a, "p", pk(11), "-1", "", 2)}, nil); c.HopsChanged {
		t.Fatal("an unscoped distrust that was never a hop reported HopsChanged")
	}
}

func opinionsOf(h *Heap, author, ctx string, now int64) map[string]int {
	out := map[string]int{}
	h.View(func(v View) {
		n, ok := v.Pubkey(author)
		if !ok {
			return
		}
		ops, _ := v.Opinions(n, ctx, "x.com", now, anyone, nil)
		for _, o := range ops {
			if _, dup := out[v.Text(o.Subject)]; dup {
				panic("two opinions about one subject")
			}
			out[v.Text(o.Subject)] = o.Value
		}
	})
	return out
}

// Opinions answer per subject with the narrowest context level of the query
// context's chain (then scope rank), as the extension's walk does.
func TestOpinionsWalkTheContextChain(t *testing.T) {
	a := pk(1)
	h := newHeap()
	h.Apply([]*validation.Statement{
		st(a, "p", pk(10), "1", "", 1),
		st(a, "p", pk(10), "-1", "development", 1),
		st(a, "p", pk(11), "1", "", 1),
		st(a, "p", pk(11), "0", "development:go", 1), // a neutral stops the fallback
		st(a, "p", pk(12), "-1", "", 1),
		st(a, "p", pk(12), "1", "development", 1, window(200, 0)), // not yet active
		st(a, "p", pk(13), "1", "identity", 1),
		st(a, "e", pk(14), "1", "", 1), // not a pubkey
	}, nil)
	cases := []struct {
		ctx  string
		want map[string]int
	}{
		{"", map[string]int{pk(10): 1, pk(11): 1, pk(12): -1}},
		{"development", map[string]int{pk(10): -1, pk(11): 1, pk(12): -1}},
		{"development:go", map[string]int{pk(10): -1, pk(11): 0, pk(12): -1}},
		{"identity", map[string]int{pk(10): 1, pk(11): 1, pk(12): -1, pk(13): 1}},
	}
	for _, c := range cases {
		if got := opinionsOf(h, a, c.ctx, 100); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("context %q: %v, want %v", c.ctx, got, c.want)
		}
	}
	if got := opinionsOf(h, a, "development", 300)[pk(12)]; got != 1 {
		t.Errorf("once active, the development trust of pk(12) answers: got %d", got)
	}
}

func TestXAccountBindingStates(t *testing.T) {
	a, p1, p2 := pk(1), pk(21), pk(22)
	const acct = "user:id:555"
	claims := func(author string, at int64, ids ...string) *validation.Claims {
		return &validation.Claims{ID: fmt.Sprintf("%064x", at), Author: author, CreatedAt: at, TwitterIDs: ids}
	}
	type step struct {
		stmts  []*validation.Statement
		claims []*validation.Claims
		fetch  []string
	}
	cases := []struct {
		name       string
		steps      []step
		wantStates map[string]string // pubkey -> state
		wantHop    string            // bound pubkey hop target, "" = no hop
		wantCands  []string
	}{
		{"pending until claims fetched", []step{{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}}},
			map[string]string{p1: StatePending}, "", []string{p1}},
		{"fetched with none held is unclaimed", []step{{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}, fetch: []string{p1}}},
			map[string]string{p1: StateUnclaimed}, "", nil},
		{"claim without the id is unclaimed", []step{{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}, claims: []*validation.Claims{claims(p1, 5, "999")}}},
			map[string]string{p1: StateUnclaimed}, "", nil},
		{"matching claim binds", []step{{claims: []*validation.Claims{claims(p1, 5, "555")}}, {stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}}},
			map[string]string{p1: StateBound}, p1, nil},
		{"newer claim without the id revokes", []step{
			{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}, claims: []*validation.Claims{claims(p1, 5, "555")}},
			{claims: []*validation.Claims{claims(p1, 6)}}},
			map[string]string{p1: StateRevoked}, "", nil},
		{"older claim does not undo a revocation", []step{
			{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}, claims: []*validation.Claims{claims(p1, 6)}},
			{claims: []*validation.Claims{claims(p1, 5, "555")}}},
			map[string]string{p1: StateUnclaimed}, "", nil},
		{"two claimants conflict", []step{{
			stmts:  []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1, p2))},
			claims: []*validation.Claims{claims(p1, 5, "555"), claims(p2, 5, "555")}}},
			map[string]string{p1: StateConflict, p2: StateConflict}, "", nil},
		{"conflict across statements of two authors", []step{{
			stmts:  []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1)), st(pk(2), "i", acct, "-1", "", 1, hints(p2))},
			claims: []*validation.Claims{claims(p1, 5, "555"), claims(p2, 5, "555")}}},
			map[string]string{p1: StateConflict, p2: StateConflict}, "", nil},
		{"one claimant among two hints binds", []step{{
			stmts:  []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1, p2))},
			claims: []*validation.Claims{claims(p1, 5, "555"), claims(p2, 5, "1")}}},
			map[string]string{p1: StateBound, p2: StateUnclaimed}, p1, nil},
		{"replaced statement drops its hint", []step{
			{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 1, hints(p1))}, claims: []*validation.Claims{claims(p1, 5, "555")}},
			{stmts: []*validation.Statement{st(a, "i", acct, "1", "", 2, scopes(xScope))}}},
			map[string]string{}, "", nil},
		{"negative statement's hint still binds", []step{
			{stmts: []*validation.Statement{st(pk(2), "i", acct, "-1", "", 1, hints(p1)), st(a, "i", acct, "1", "", 1)}, claims: []*validation.Claims{claims(p1, 5, "555")}}},
			map[string]string{p1: StateBound}, p1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHeap()
			for _, s := range c.steps {
				h.Apply(s.stmts, s.claims)
				h.ClaimsFetched(s.fetch)
			}
			got := map[string]string{}
			h.View(func(v View) {
				n, _ := v.Subject('i', acct)
				for _, b := range v.Bindings(n, 100, anyone) {
					got[b.Pubkey] = b.State
					if b.XAccount != acct {
						t.Errorf("binding names %s", b.XAccount)
					}
				}
			})
			if fmt.Sprint(got) != fmt.Sprint(c.wantStates) {
				t.Fatalf("states %v, want %v", got, c.wantStates)
			}
			hops := hopsOf(h, a, 100)
			if c.wantHop == "" && len(hops) != 0 || c.wantHop != "" && !slices.Equal(hops, []string{c.wantHop}) {
				t.Fatalf("hops %v, want %q", hops, c.wantHop)
			}
			if cands := h.ClaimCandidates(); !slices.Equal(cands, c.wantCands) {
				t.Fatalf("claim candidates %v, want %v", cands, c.wantCands)
			}
		})
	}
}

func TestBindingAliasesAndDiscovery(t *testing.T) {
	a, p := pk(1), pk(21)
	h := newHeap()
	h.Apply([]*validation.Statement{
		st(a, "i", "user:id:7", "1", "", 1, hints(p)),
		st(a, "i", "user:id:8", "1", "", 1),
		st(a, "i", "user:id:9", "1", "", 1, hints(pk(30))),
	}, []*validation.Claims{{ID: pk(99), Author: p, CreatedAt: 1, TwitterIDs: []string{"7"}}})
	if got, want := h.DiscoverySubjects(), []string{"user:id:7", "user:id:9"}; !slices.Equal(got, want) {
		t.Fatalf("discovery %v, want %v", got, want)
	}
	if got, want := slices.Sorted(maps.Keys(h.ids.accounts)), []string{p, pk(30)}; !slices.Equal(got, want) {
		t.Fatalf("hinted %v, want %v", got, want)
	}
	h.View(func(v View) {
		pn, ok := v.Pubkey(p)
		if !ok {
			t.Fatal("bound pubkey has no node")
		}
		xn, _ := v.Subject('i', "user:id:7")
		if al := v.Aliases(pn, 100, anyone); len(al) != 1 || al[0] != xn {
			t.Fatalf("aliases of pubkey %v", al)
		}
		if al := v.Aliases(xn, 100, anyone); len(al) != 1 || al[0] != pn {
			t.Fatalf("aliases of account %v", al)
		}
		if b := v.Bindings(pn, 100, anyone); len(b) != 1 || b[0].State != StateBound || b[0].XAccount != "user:id:7" {
			t.Fatalf("bindings of pubkey %+v", b)
		}
	})
}

func TestGuardrails(t *testing.T) {
	a := pk(1)
	t.Run("node limit", func(t *testing.T) {
		h := New(settings.Limits{HeapNodeLimit: 3, HeapEdgeLimit: 100})
		c := h.Apply([]*validation.Statement{st(a, "p", pk(2), "1", "", 1), st(a, "p", pk(3), "1", "", 1), st(a, "p", pk(4), "1", "", 1)}, nil)
		s := h.Stats()
		if c.Applied != 2 || s.Nodes != 3 || s.Edges != 2 || s.LimitReason != status.ReasonHeapNodeLimit {
			t.Fatalf("change %+v stats %+v", c, s)
		}
		// Existing slots still take newer winners.
		h.Apply([]*validation.Statement{st(a, "p", pk(2), "-1", "", 2)}, nil)
		if got := resolve(h, a, "p", pk(2), validation.KindTrust, "", "", 5); got != `-1@""` {
			t.Fatalf("replacement at limit: %s", got)
		}
		// A new slot between held nodes needs no node: still accepted.
		if c := h.Apply([]*validation.Statement{st(pk(2), "p", pk(3), "1", "", 1)}, nil); c.Applied != 1 {
			t.Fatalf("edge between held nodes refused: %+v", c)
		}
	})
	t.Run("edge limit", func(t *testing.T) {
		h := New(settings.Limits{HeapNodeLimit: 100, HeapEdgeLimit: 2})
		c := h.Apply([]*validation.Statement{st(a, "p", pk(2), "1", "", 1), st(a, "p", pk(3), "1", "", 1), st(a, "p", pk(4), "1", "", 1)}, nil)
		s := h.Stats()
		if c.Applied != 2 || s.Edges != 2 || s.Nodes != 3 || s.LimitReason != status.ReasonHeapEdgeLimit {
			t.Fatalf("change %+v stats %+v", c, s)
		}
		if c := h.Apply([]*validation.Statement{st(a, "p", pk(3), "", "", 5)}, nil); c.Applied != 1 {
			t.Fatalf("replacement at edge limit refused: %+v", c)
		}
	})
}

func TestEvidenceCarriesSourceFields(t *testing.T) {
	a, s := pk(1), pk(2)
	in := st(a, "p", s, "-1", "a", 7, scopes("x.com"), func(st *validation.Statement) {
		st.Labels = []validation.Label{{Name: "spam", Description: "sends spam"}}
		st.Content = "reason"
	})
	h := newHeap()
	h.Apply([]*validation.Statement{in}, nil)
	h.View(func(v View) {
		sn, _ := v.Pubkey(s)
		ev := v.Statements(sn, validation.KindTrust, "a:b", "x.com", 10, nil)
		if len(ev) != 1 {
			t.Fatalf("evidence %+v", ev)
		}
		e := ev[0]
		if v.Text(e.Author) != a || hex.EncodeToString(e.ID[:]) != in.ID || e.Context != "a" || e.Scope != "x.com" || e.CreatedAt != 7 ||
			e.Content != "reason" || len(e.Labels) != 1 || e.Labels[0].Name != "spam" || e.Value != -1 {
			t.Fatalf("evidence %+v", e)
		}
	})
	// A replacement without extras clears them.
	h.Apply([]*validation.Statement{st(a, "p", s, "1", "a", 8, scopes("x.com"))}, nil)
	h.View(func(v View) {
		sn, _ := v.Pubkey(s)
		if e := v.Statements(sn, validation.KindTrust, "a", "x.com", 10, nil)[0]; e.Content != "" || e.Labels != nil {
			t.Fatalf("stale extras %+v", e)
		}
	})
}

// An author past slotScanMax moves to the slot map; replacement must work
// on both sides of the switch.
func TestManySlotsPerAuthor(t *testing.T) {
	a := pk(1)
	h := newHeap()
	const n = 3 * slotScanMax
	for i := range n {
		h.Apply([]*validation.Statement{st(a, "p", pk(100+i), "1", "", 10)}, nil)
	}
	for i := range n {
		h.Apply([]*validation.Statement{st(a, "p", pk(100+i), "-1", "", 5), st(a, "p", pk(100+i), "0", "", 20)}, nil)
	}
	if s := h.Stats(); s.Edges != n {
		t.Fatalf("edges %d, want %d", s.Edges, n)
	}
	for i := range n {
		if got := resolve(h, a, "p", pk(100+i), validation.KindTrust, "", "", 30); got != `0@""` {
			t.Fatalf("slot %d: %s", i, got)
		}
	}
}

// TestDecimalRatingsKeepTheirDecimals: a decimal winner replaces an integer
// one and keeps its fraction (issue 9 item 1).
func TestDecimalRatingsKeepTheirDecimals(t *testing.T) {
	a, s := pk(1), pk(2)
	h := newHeap()
	h.Apply([]*validation.Statement{st(a, "p", s, "50", "", 1, rating, scopes("x.com"))}, nil)
	h.Apply([]*validation.Statement{st(a, "p", s, "50.598334", "", 2, rating, scopes("x.com"))}, nil)
	if got := resolve(h, a, "p", s, validation.KindRating, "", "x.com", 100); got != `50.598334@""` {
		t.Fatalf("rating %s, want 50.598334", got)
	}
}

// TestYZeroHasExpired: a present y of 0 ends the statement at 0, unlike an
// absent y (issue 9 item 5).
func TestYZeroHasExpired(t *testing.T) {
	a, s := pk(1), pk(2)
	h := newHeap()
	h.Apply([]*validation.Statement{st(a, "p", s, "1", "", 1, func(s *validation.Statement) { s.Expires = true })}, nil)
	if got := resolve(h, a, "p", s, validation.KindTrust, "", "", 100); got != "none" {
		t.Fatalf("y=0 statement answered %s", got)
	}
	if hops := hopsOf(h, a, 100); len(hops) != 0 {
		t.Fatalf("y=0 statement hops to %v", hops)
	}
}
