package frontier

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// randomWorld is a random set of statement versions and claims, applied to a
// heap in shuffled order, plus what a plain reading of SPEC §4/§6.3 says
// the hops are.
type randomWorld struct {
	stmts  []*validation.Statement
	claims []*validation.Claims
}

func newRandomWorld(rng *rand.Rand, pubkeys, slots, accounts int) *randomWorld {
	w := &randomWorld{}
	id := 0
	nextID := func() string { id++; return fmt.Sprintf("%064x", rng.Uint64()<<20|uint64(id)) }
	values := []string{"1", "1", "1", "1", "0", "-1", ""}
	// owner is the pubkey most hints name for an account, and that claims it.
	owner := func(account int) string { return pk(1 + account*7%pubkeys) }
	for s := 0; s < slots; s++ {
		author := pk(1 + rng.IntN(pubkeys))
		tag, subject := byte('p'), pk(1+rng.IntN(pubkeys))
		var hintsFor func() []string
		if rng.IntN(10) == 0 {
			account := rng.IntN(accounts)
			tag, subject = 'i', fmt.Sprintf("user:id:%d", account)
			hintsFor = func() []string {
				switch rng.IntN(3) {
				case 0:
					return nil
				case 1:
					return []string{pk(1 + rng.IntN(pubkeys))}
				}
				return []string{owner(account)}
			}
		}
		ctx := []string{"", "", "", "identity", "identity:work", "a"}[rng.IntN(6)]
		var scopes []string
		if rng.IntN(2) == 0 {
			scopes = []string{"x.com"}
		}
		for v := 0; v <= rng.IntN(3); v++ {
			st := &validation.Statement{
				Kind: validation.KindTrust, ID: nextID(), Author: author, CreatedAt: int64(1 + rng.IntN(5)),
				SubjectTag: tag, Subject: subject, Value: values[rng.IntN(len(values))], Context: ctx, Scopes: scopes,
			}
			if hintsFor != nil {
				st.BoundHints = hintsFor()
			}
			switch rng.IntN(8) {
			case 0:
				st.ActiveFrom = int64(90 + rng.IntN(20)) // around now = 100
			case 1:
				st.ActiveUntil, st.Expires = int64(90+rng.IntN(20)), true
			}
			w.stmts = append(w.stmts, st)
		}
	}
	for c := 0; c < accounts; c++ {
		author := owner(c)
		for v := 0; v <= rng.IntN(2); v++ {
			var ids []string
			switch rng.IntN(4) {
			case 0:
			case 1:
				ids = []string{fmt.Sprint(rng.IntN(accounts))}
			default:
				ids = []string{fmt.Sprint(c)}
			}
			w.claims = append(w.claims, &validation.Claims{ID: nextID(), Author: author, CreatedAt: int64(1 + rng.IntN(3)), TwitterIDs: ids})
		}
	}
	return w
}

func newer(aAt int64, aID string, bAt int64, bID string) bool {
	return aAt > bAt || (aAt == bAt && aID < bID)
}

// referenceHops computes from scratch (slot winners, latest claims) the hop
// targets of an author, given the authors admitted so far: a positive active
// statement in global or identity, unless an active x.com-scoped one about
// the same subject in the same context outranks it; an X account
// hops to the one claimant hinted by an admitted author's active,
// non-delete, x.com-scoped statement. bound counts such hops.
func (w *randomWorld) referenceHops(now int64) (hopsOf func(author string, admitted map[string]refAuthor) []string, bound *int) {
	winners := map[string]*validation.Statement{}
	for _, s := range w.stmts {
		key := strings.Join([]string{s.Author, string(s.SubjectTag), s.Subject, s.Context, strings.Join(s.Scopes, ",")}, "|")
		if old, ok := winners[key]; !ok || newer(s.CreatedAt, s.ID, old.CreatedAt, old.ID) {
			winners[key] = s
		}
	}
	latestClaims := map[string]*validation.Claims{}
	for _, c := range w.claims {
		if old, ok := latestClaims[c.Author]; !ok || newer(c.CreatedAt, c.ID, old.CreatedAt, old.ID) {
			latestClaims[c.Author] = c
		}
	}
	active := func(s *validation.Statement) bool {
		return s.Value != "" && (s.ActiveFrom == 0 || now >= s.ActiveFrom) && (!s.Expires || now <= s.ActiveUntil)
	}
	byAuthor := map[string][]*validation.Statement{}
	about := map[string][]*validation.Statement{} // X account -> statements about it
	for _, s := range winners {
		byAuthor[s.Author] = append(byAuthor[s.Author], s)
		if s.SubjectTag == 'i' {
			about[s.Subject] = append(about[s.Subject], s)
		}
	}
	boundTo := func(account string, admitted map[string]refAuthor) string {
		owners := map[string]bool{}
		for _, s := range about[account] {
			if _, in := admitted[s.Author]; !in || !active(s) || !slices.Contains(s.Scopes, "x.com") {
				continue
			}
			for _, p := range s.BoundHints {
				if c := latestClaims[p]; c != nil && slices.Contains(c.TwitterIDs, strings.TrimPrefix(account, "user:id:")) {
					owners[p] = true
				}
			}
		}
		for p := range owners {
			if len(owners) == 1 {
				return p
			}
		}
		return ""
	}
	bound = new(int)
	hopsOf = func(author string, admitted map[string]refAuthor) []string {
		var out []string
		for _, s := range byAuthor[author] {
			if s.Value != "1" || !active(s) || (s.Context != "" && s.Context != "identity") {
				continue
			}
			if len(s.Scopes) == 0 && slices.ContainsFunc(byAuthor[author], func(o *validation.Statement) bool {
				return len(o.Scopes) > 0 && active(o) && o.SubjectTag == s.SubjectTag && o.Subject == s.Subject && o.Context == s.Context
			}) {
				continue // the active x.com statement about the same subject in the same context answers instead
			}
			target := s.Subject
			if s.SubjectTag == 'i' {
				if target = boundTo(s.Subject, admitted); target == "" {
					continue
				}
				*bound++
			}
			out = append(out, target)
		}
		return out
	}
	return hopsOf, bound
}

type refAuthor struct {
	depth  int
	parent string
}

// referenceBFS is the frontier rule written plainly over strings.
func referenceBFS(hopsOf func(string, map[string]refAuthor) []string, roots []string, l settings.Limits) (map[string]refAuthor, []int, map[string]int) {
	maxDepth := min(l.MaxDepth, 5)
	admitted := map[string]refAuthor{}
	firstCut := map[string]string{}
	note := func(a, reason string) {
		if _, ok := firstCut[a]; !ok {
			firstCut[a] = reason
		}
	}
	var byDepth []int
	parentOf := map[string]string{}
	level := slices.Clone(roots)
	sort.Strings(level)
	level = slices.Compact(level)
	for depth := 0; len(level) > 0; depth++ {
		if depth > maxDepth {
			for _, a := range level {
				note(a, status.ReasonMaxDepth)
			}
			break
		}
		if l.MaxAuthorsPerLevel > 0 && len(level) > l.MaxAuthorsPerLevel {
			for _, a := range level[l.MaxAuthorsPerLevel:] {
				note(a, status.ReasonMaxAuthorsPerLevel)
			}
			level = level[:l.MaxAuthorsPerLevel]
		}
		if l.MaxTotalAuthors > 0 {
			room := max(l.MaxTotalAuthors-len(admitted), 0)
			if len(level) > room {
				for _, a := range level[room:] {
					note(a, status.ReasonMaxTotalAuthors)
				}
				level = level[:room]
			}
		}
		if len(level) == 0 {
			break
		}
		byDepth = append(byDepth, len(level))
		for _, a := range level {
			admitted[a] = refAuthor{depth: depth, parent: parentOf[a]}
			delete(firstCut, a)
		}
		next := map[string]bool{}
		parentOf = map[string]string{}
		for _, a := range level { // sorted: the first finder is the parent
			for _, t := range hopsOf(a, admitted) {
				if _, in := admitted[t]; in || next[t] {
					continue
				}
				next[t] = true
				parentOf[t] = a
			}
		}
		level = level[:0:0]
		for t := range next {
			level = append(level, t)
		}
		sort.Strings(level)
	}
	cuts := map[string]int{}
	for _, reason := range firstCut {
		cuts[reason]++
	}
	return admitted, byDepth, cuts
}

func TestWalkMatchesReferenceBFS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	// seen guards the test itself: every cut point and bound X accounts must
	// actually occur, or the comparison proves little.
	seen := map[string]int{}
	for round := 0; round < 8; round++ {
		pubkeys := 2000 + rng.IntN(2000)
		w := newRandomWorld(rng, pubkeys, pubkeys*8, 200)
		h := heap.New(settings.DefaultLimits())
		// Shuffled, in small batches: the heap must keep winners whatever the order.
		order := rng.Perm(len(w.stmts))
		for i := 0; i < len(order); i += 50 {
			var batch []*validation.Statement
			for _, k := range order[i:min(i+50, len(order))] {
				batch = append(batch, w.stmts[k])
			}
			var claims []*validation.Claims
			if c := i / 50; c < len(w.claims) {
				claims = w.claims[c : c+1]
			}
			h.Apply(batch, claims)
		}
		for c := len(order)/50 + 1; c < len(w.claims); c++ {
			h.Apply(nil, w.claims[c:c+1])
		}
		hopsOf, bound := w.referenceHops(100)

		for trial := 0; trial < 5; trial++ {
			var roots []string
			for range 1 + rng.IntN(4) {
				roots = append(roots, pk(1+rng.IntN(pubkeys+20))) // some roots hold nothing
			}
			l := settings.Limits{
				MaxDepth:           rng.IntN(7),
				MaxAuthorsPerLevel: []int{0, 3, 40, 400}[rng.IntN(4)],
				MaxTotalAuthors:    []int{0, 5, 200, 1500}[rng.IntN(4)],
			}
			got := walk(h, Params{Roots: roots, Limits: l, Now: 100})
			want, wantByDepth, wantCuts := referenceBFS(hopsOf, roots, l)
			seen["bound hops"] += *bound

			label := fmt.Sprintf("round %d trial %d limits %+v", round, trial, l)
			if got.Size() != len(want) {
				t.Fatalf("%s: size %d, want %d", label, got.Size(), len(want))
			}
			for _, a := range got.Authors {
				ref, ok := want[a.Pubkey]
				if !ok || ref.depth != a.Depth {
					t.Fatalf("%s: author %s depth %d, reference %+v (present %v)", label, a.Pubkey[56:], a.Depth, ref, ok)
				}
				parent := ""
				if a.Parent >= 0 {
					parent = got.Authors[a.Parent].Pubkey
				}
				if parent != ref.parent {
					t.Fatalf("%s: parent of %s is %s, reference %s", label, a.Pubkey[56:], parent, ref.parent)
				}
			}
			if !slices.Equal(got.ByDepth, wantByDepth) {
				t.Fatalf("%s: byDepth %v, want %v", label, got.ByDepth, wantByDepth)
			}
			gotCuts := map[string]int{}
			for _, tr := range got.Truncation {
				gotCuts[tr.Reason] = tr.Cut
				seen[tr.Reason]++
			}
			if fmt.Sprint(gotCuts) != fmt.Sprint(wantCuts) {
				t.Fatalf("%s: cuts %v, want %v", label, gotCuts, wantCuts)
			}
		}
	}
	for _, what := range []string{status.ReasonMaxDepth, status.ReasonMaxAuthorsPerLevel, status.ReasonMaxTotalAuthors, "bound hops"} {
		if seen[what] == 0 {
			t.Errorf("random worlds never produced %s", what)
		}
	}
}
