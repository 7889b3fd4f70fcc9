package frontier

import (
	"testing"
	"time"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/validation"
)

// A walk lets a commit waiting for the heap in as it goes, rather than
// holding every commit (and the questions behind it) for its whole length,
// and walks on over what the commit added, new nodes too.
func TestWalkLetsACommitIn(t *testing.T) {
	var level1 [][2]int
	for a := 2; a <= 101; a++ {
		level1 = append(level1, [2]int{1, a})
	}
	p := Params{Roots: []string{pk(1)}, Limits: limits(4, 1000, 1000)}
	// the writer must be waiting when the walk starts: a few tries in case
	// it was not scheduled in time
	for try := 1; ; try++ {
		h := graph(p.Limits, level1...)
		applied := make(chan struct{})
		var r *Result
		h.View(func(v heap.View) {
			go func() {
				h.Apply([]*validation.Statement{trust(101, 500, "1")}, nil)
				close(applied)
			}()
			time.Sleep(5 * time.Millisecond)
			r = Walk(v, p)
		})
		<-applied
		got := depths(r)
		if got[500] == 2 {
			if len(got) != 102 {
				t.Errorf("walk reached %d authors, want 102 (the root, 100 at depth 1, the new one)", len(got))
			}
			if d, ok := r.NodeDepth(nodeOf(t, h, 500)); !ok || d != 2 {
				t.Errorf("NodeDepth of the node the commit added = %d, %v; want 2", d, ok)
			}
			return
		}
		if try == 50 {
			t.Fatalf("in %d walks the commit never got in: %v", try, got)
		}
	}
}

func nodeOf(t *testing.T, h *heap.Heap, i int) heap.NodeID {
	var n heap.NodeID
	var ok bool
	h.View(func(v heap.View) { n, ok = v.Pubkey(pk(i)) })
	if !ok {
		t.Fatalf("no node for %d", i)
	}
	return n
}
