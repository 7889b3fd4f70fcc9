package heap

import (
	"testing"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// Limits lowered on a running heap freeze it at once: it keeps what it holds
// and takes no new node or edge; raised again, it takes new ones.
func TestSetLimitsReachesRunningHeap(t *testing.T) {
	a := pk(1)
	limits := func(nodes, edges int) settings.Limits {
		l := settings.DefaultLimits()
		l.HeapNodeLimit, l.HeapEdgeLimit = nodes, edges
		return l
	}
	trusts := func(h *Heap, subject int) Change {
		return h.Apply([]*validation.Statement{st(a, "p", pk(subject), "1", "", 1)}, nil)
	}
	t.Run("node limit", func(t *testing.T) {
		h := newHeap()
		trusts(h, 2)
		trusts(h, 3) // 3 nodes, 2 edges
		h.SetLimits(limits(2, 100))
		if s := h.Stats(); s.NodeLimit != 2 || s.Nodes != 3 || s.LimitReason != status.ReasonHeapNodeLimit {
			t.Fatalf("after lowering: %+v", s)
		}
		if c := trusts(h, 4); c.Applied != 0 || h.Stats().Nodes != 3 {
			t.Fatalf("a new node past the lowered limit was taken: %+v %+v", c, h.Stats())
		}
		h.SetLimits(limits(10, 100))
		if c := trusts(h, 4); c.Applied != 1 || h.Stats().Nodes != 4 {
			t.Fatalf("a new node under the raised limit was refused: %+v %+v", c, h.Stats())
		}
	})
	t.Run("edge limit", func(t *testing.T) {
		h := newHeap()
		trusts(h, 2)
		trusts(h, 3)
		h.SetLimits(limits(100, 1))
		if s := h.Stats(); s.EdgeLimit != 1 || s.Edges != 2 || s.LimitReason != status.ReasonHeapEdgeLimit {
			t.Fatalf("after lowering: %+v", s)
		}
		if c := trusts(h, 4); c.Applied != 0 || h.Stats().Edges != 2 {
			t.Fatalf("a new edge past the lowered limit was taken: %+v %+v", c, h.Stats())
		}
	})
}
