package frontier

import (
	"fmt"
	"slices"
	"testing"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

func pk(i int) string { return fmt.Sprintf("%064x", i) }

var evSeq int

func trust(author, subject int, value string) *validation.Statement {
	evSeq++
	return &validation.Statement{
		Kind: validation.KindTrust, ID: fmt.Sprintf("%064x", 1<<50+evSeq), Author: pk(author), CreatedAt: 1,
		SubjectTag: 'p', Subject: pk(subject), Value: value,
	}
}

// graph builds a heap with one positive hop per pair.
func graph(limits settings.Limits, hops ...[2]int) *heap.Heap {
	h := heap.New(limits)
	var stmts []*validation.Statement
	for _, e := range hops {
		stmts = append(stmts, trust(e[0], e[1], "1"))
	}
	h.Apply(stmts, nil)
	return h
}

func walk(h *heap.Heap, p Params) *Result {
	var r *Result
	h.View(func(v heap.View) { r = Walk(v, p) })
	return r
}

func limits(depth, perLevel, total int) settings.Limits {
	l := settings.DefaultLimits()
	l.MaxDepth, l.MaxAuthorsPerLevel, l.MaxTotalAuthors = depth, perLevel, total
	return l
}

func depths(r *Result) map[int]int {
	out := map[int]int{}
	for _, a := range r.Authors {
		var n int
		fmt.Sscanf(a.Pubkey, "%x", &n)
		out[n] = a.Depth
	}
	return out
}

func TestWalkCaps(t *testing.T) {
	cases := []struct {
		name       string
		hops       [][2]int
		roots      []int
		limits     settings.Limits
		want       map[int]int // author -> depth
		truncation []status.Truncation
	}{
		{"no caps reached", [][2]int{{1, 2}, {2, 3}}, []int{1}, limits(4, 10, 10),
			map[int]int{1: 0, 2: 1, 3: 2}, nil},
		{"maxDepth cuts the level beyond", [][2]int{{1, 2}, {2, 3}, {2, 4}, {3, 5}}, []int{1}, limits(1, 10, 10),
			map[int]int{1: 0, 2: 1}, []status.Truncation{{Reason: status.ReasonMaxDepth, Cut: 2}}},
		{"maxDepth 0 keeps only roots", [][2]int{{1, 2}}, []int{1}, limits(0, 10, 10),
			map[int]int{1: 0}, []status.Truncation{{Reason: status.ReasonMaxDepth, Cut: 1}}},
		{"depth hard cap is 5", [][2]int{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}}, []int{1}, limits(9, 10, 10),
			map[int]int{1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}, []status.Truncation{{Reason: status.ReasonMaxDepth, Cut: 1}}},
		{"maxAuthorsPerLevel keeps lowest hex", [][2]int{{1, 5}, {1, 4}, {1, 3}, {1, 2}}, []int{1}, limits(4, 2, 10),
			map[int]int{1: 0, 2: 1, 3: 1}, []status.Truncation{{Reason: status.ReasonMaxAuthorsPerLevel, Cut: 2}}},
		{"maxAuthorsPerLevel on roots", nil, []int{3, 1, 2}, limits(4, 2, 10),
			map[int]int{1: 0, 2: 0}, []status.Truncation{{Reason: status.ReasonMaxAuthorsPerLevel, Cut: 1}}},
		{"maxTotalAuthors", [][2]int{{1, 2}, {1, 3}, {2, 4}}, []int{1}, limits(4, 10, 3),
			map[int]int{1: 0, 2: 1, 3: 1}, []status.Truncation{{Reason: status.ReasonMaxTotalAuthors, Cut: 1}}},
		{"maxTotalAuthors cuts inside a level", [][2]int{{1, 2}, {1, 3}, {1, 4}}, []int{1}, limits(4, 10, 2),
			map[int]int{1: 0, 2: 1}, []status.Truncation{{Reason: status.ReasonMaxTotalAuthors, Cut: 2}}},
		{"cut then found deeper is admitted, not counted", [][2]int{{1, 2}, {1, 3}, {1, 4}, {2, 4}}, []int{1}, limits(4, 2, 10),
			map[int]int{1: 0, 2: 1, 3: 1, 4: 2}, nil},
		{"an author cut twice counts once, under the first cap", [][2]int{{1, 2}, {1, 3}, {1, 4}, {2, 4}}, []int{1}, limits(1, 2, 10),
			map[int]int{1: 0, 2: 1, 3: 1}, []status.Truncation{{Reason: status.ReasonMaxAuthorsPerLevel, Cut: 1}}},
		{"several caps in one walk", [][2]int{{1, 2}, {1, 3}, {1, 4}, {2, 5}, {3, 6}, {5, 7}}, []int{1}, limits(2, 2, 4),
			map[int]int{1: 0, 2: 1, 3: 1, 5: 2}, []status.Truncation{
				{Reason: status.ReasonMaxDepth, Cut: 1}, {Reason: status.ReasonMaxAuthorsPerLevel, Cut: 1}, {Reason: status.ReasonMaxTotalAuthors, Cut: 1}}},
		{"roots absent from the heap are kept", nil, []int{9}, limits(4, 10, 10), map[int]int{9: 0}, nil},
		{"cycles terminate", [][2]int{{1, 2}, {2, 1}, {2, 2}}, []int{1}, limits(4, 10, 10), map[int]int{1: 0, 2: 1}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := graph(settings.DefaultLimits(), c.hops...)
			var roots []string
			for _, r := range c.roots {
				roots = append(roots, pk(r))
			}
			r := walk(h, Params{Roots: roots, Limits: c.limits, Now: 100})
			if got := depths(r); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("authors %v, want %v", got, c.want)
			}
			if fmt.Sprint(r.Truncation) != fmt.Sprint(c.truncation) {
				t.Fatalf("truncation %v, want %v", r.Truncation, c.truncation)
			}
			sum := 0
			for _, n := range r.ByDepth {
				sum += n
			}
			if sum != r.Size() {
				t.Fatalf("byDepth %v does not add to %d", r.ByDepth, r.Size())
			}
		})
	}
}

func TestWalkIgnoresNonHops(t *testing.T) {
	h := heap.New(settings.DefaultLimits())
	h.Apply([]*validation.Statement{trust(1, 2, "-1"), trust(1, 3, "0"), trust(1, 4, ""), trust(1, 5, "1")}, nil)
	r := walk(h, Params{Roots: []string{pk(1)}, Limits: settings.DefaultLimits(), Now: 100})
	if got := depths(r); fmt.Sprint(got) != fmt.Sprint(map[int]int{1: 0, 5: 1}) {
		t.Fatalf("authors %v", got)
	}
}

func TestWalkThroughBoundXAccount(t *testing.T) {
	h := heap.New(settings.DefaultLimits())
	st := trust(1, 0, "1")
	st.SubjectTag, st.Subject, st.BoundHints, st.Scopes = 'i', "user:id:42", []string{pk(7)}, []string{"x.com"}
	h.Apply([]*validation.Statement{st}, nil)
	p := Params{Roots: []string{pk(1)}, Limits: settings.DefaultLimits(), Now: 100}
	if r := walk(h, p); r.Size() != 1 {
		t.Fatalf("pending claim must not be a hop: %v", depths(r))
	}
	h.Apply(nil, []*validation.Claims{{ID: pk(99), Author: pk(7), CreatedAt: 1, TwitterIDs: []string{"42"}}})
	if got := depths(walk(h, p)); fmt.Sprint(got) != fmt.Sprint(map[int]int{1: 0, 7: 1}) {
		t.Fatalf("bound account must hop to its pubkey: %v", got)
	}
}

func TestWalkPathsAndNextChange(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 3}, [2]int{2, 3}, [2]int{3, 4})
	late := trust(4, 5, "1")
	late.ActiveFrom = 500
	h.Apply([]*validation.Statement{late}, nil)
	r := walk(h, Params{Roots: []string{pk(2), pk(1)}, Limits: settings.DefaultLimits(), Now: 100})
	// 3 is found by both roots; the first in hex order (1) is its parent.
	if got := r.Path(pk(4)); !slices.Equal(got, []string{pk(1), pk(3), pk(4)}) {
		t.Fatalf("path %v", got)
	}
	if got := r.Path(pk(2)); !slices.Equal(got, []string{pk(2)}) {
		t.Fatalf("root path %v", got)
	}
	if r.NextChange != 500 {
		t.Fatalf("next change %d, want 500", r.NextChange)
	}
	if d, ok := r.Depth(pk(5)); ok {
		t.Fatalf("inactive hop followed: depth %d", d)
	}
	if d, _ := walk(h, Params{Roots: []string{pk(1)}, Limits: settings.DefaultLimits(), Now: 500}).Depth(pk(5)); d != 3 {
		t.Fatalf("hop active from its x: depth %d", d)
	}
}

func TestWalkFrozenAtHeapLimit(t *testing.T) {
	// Node limit 4: the fourth node fills it, then a new author is refused.
	h := graph(settings.Limits{HeapNodeLimit: 4, HeapEdgeLimit: 100}, [2]int{1, 2}, [2]int{2, 3})
	p := Params{Roots: []string{pk(1)}, Limits: settings.DefaultLimits(), Now: 100}
	before := walk(h, p)
	h.Apply([]*validation.Statement{trust(1, 4, "1"), trust(1, 5, "1")}, nil) // 4 fits, 5 hits the limit
	if h.Stats().LimitReason != status.ReasonHeapNodeLimit {
		t.Fatalf("heap not at limit: %+v", h.Stats())
	}
	p.Frozen = before
	r := walk(h, p)
	if got := depths(r); fmt.Sprint(got) != fmt.Sprint(map[int]int{1: 0, 2: 1, 3: 2}) {
		t.Fatalf("frozen frontier grew: %v", got)
	}
	if fmt.Sprint(r.Truncation) != fmt.Sprint([]status.Truncation{{Reason: status.ReasonHeapNodeLimit, Cut: 1}}) {
		t.Fatalf("truncation %v", r.Truncation)
	}
}
