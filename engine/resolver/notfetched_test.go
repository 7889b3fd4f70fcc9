package resolver

import (
	"context"
	"slices"
	"testing"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// unfetched is the sync as the resolver sees it: members not yet fetched,
// and whether the frontier is behind the heap.
type unfetched struct {
	members []string
	behind  bool
}

func (u *unfetched) SyncCoverage() []string          { return nil }
func (u *unfetched) NotYetFetched() ([]string, bool) { return u.members, u.behind }

func (w *web) keys(names ...string) (out []string) {
	for _, n := range names {
		out = append(out, w.key(n))
	}
	return out
}

// An answer whose walk reaches a member no relay has given yet is partial,
// not-yet-fetched, with how many; answers that do not reach them stay
// complete, and a root never fetched is never complete (issue 32 §2).
func TestAnswersSayNotYetFetched(t *testing.T) {
	w := newWeb(t).trusts("root", "alice", "bob").says("alice", "post:id:1", "1", "").says("carol", "post:id:2", "1", "")
	w.trusts("bob", "dave")
	limits := settings.DefaultLimits()
	h := heap.New(limits)
	h.Apply(w.stmts, nil)
	tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: w.keys("root")})
	tr.Recompute()
	src := &unfetched{}
	res := New(h, tr, src, nil)
	ask := func(subject string) status.Coverage {
		t.Helper()
		_, s := w.subject(subject)
		a, err := res.Resolve(context.Background(), Query{Subject: s})
		if err != nil {
			t.Fatal(err)
		}
		return a.Coverage
	}
	if c := ask("post:id:1"); c.State != status.StateComplete {
		t.Fatalf("everyone fetched: %+v", c)
	}
	src.members = w.keys("dave", "bob") // reached: bob at depth 1, dave at depth 2
	slices.Sort(src.members)
	if c := ask("post:id:1"); c.State != status.StatePartial || !slices.Equal(c.Reasons, []string{status.ReasonNotYetFetched}) || c.NotYetFetched != 2 {
		t.Fatalf("two reached members not fetched: %+v", c)
	}
	src.members = w.keys("carol") // not in the walk
	if c := ask("post:id:2"); c.State != status.StateComplete {
		t.Fatalf("a member the walk does not reach made the answer partial: %+v", c)
	}
	src.members = w.keys("root")
	if c := ask("post:id:9"); c.State != status.StatePartial || c.NotYetFetched != 1 {
		t.Fatalf("a root never fetched: %+v", c)
	}
	// the heap now holds a hop the frontier has not walked yet: erin is
	// followed by the answer's walk but is no member, so never asked for
	src.members = nil
	held := len(w.stmts)
	w.trusts("alice", "erin")
	h.Apply(w.stmts[held:], nil)
	if c := ask("post:id:1"); c.State != status.StateComplete {
		t.Fatalf("the frontier not behind: %+v", c)
	}
	src.behind = true
	if c := ask("post:id:1"); c.State != status.StatePartial || c.NotYetFetched != 1 {
		t.Fatalf("a followed author outside a frontier behind the heap: %+v", c)
	}
	tr.Recompute()
	if c := ask("post:id:1"); c.State != status.StateComplete {
		t.Fatalf("after the walk, erin a member: %+v", c)
	}
	// a question's own roots were never asked for: carol (held, speaking)
	// and frank (nothing held) are counted; the configured root is not
	src.behind = false
	_, post := w.subject("post:id:2")
	a, err := res.Resolve(context.Background(), Query{Subject: post, Roots: w.keys("carol", "frank", "root")})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Evidence) != 1 || a.Coverage.State != status.StatePartial || a.Coverage.NotYetFetched != 2 {
		t.Fatalf("a question's own roots: %d evidence, coverage %+v", len(a.Evidence), a.Coverage)
	}
}

// The count follows the heap with the members' list unchanged: a member
// nothing was held of gets a node from a commit, and the next answer that
// reaches it counts it (the resolver looks the list's nodes up once and
// keeps its count between questions).
func TestNotYetFetchedFollowsCommits(t *testing.T) {
	w := newWeb(t).trusts("root", "alice", "bob").says("alice", "post:id:1", "1", "")
	limits := settings.DefaultLimits()
	h := heap.New(limits)
	h.Apply(w.stmts, nil)
	tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: w.keys("root")})
	tr.Recompute()
	src := &unfetched{members: w.keys("gina")}
	res := New(h, tr, src, nil)
	ask := func() status.Coverage {
		t.Helper()
		_, s := w.subject("post:id:1")
		a, err := res.Resolve(context.Background(), Query{Subject: s})
		if err != nil {
			t.Fatal(err)
		}
		return a.Coverage
	}
	for range 2 {
		if c := ask(); c.State != status.StateComplete {
			t.Fatalf("a member nothing is held of: %+v", c)
		}
	}
	held := len(w.stmts)
	w.trusts("bob", "gina")
	h.Apply(w.stmts[held:], nil)
	for range 2 {
		if c := ask(); c.State != status.StatePartial || c.NotYetFetched != 1 {
			t.Fatalf("bob now trusts gina, a member not fetched: %+v", c)
		}
	}
	src.members = nil
	if c := ask(); c.State != status.StateComplete {
		t.Fatalf("gina fetched: %+v", c)
	}
}
