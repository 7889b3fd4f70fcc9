package resolver

import (
	"math/bits"
	"slices"
	"sync"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
)

// unfetchedReached counts the members not yet fetched that a question's
// walks reach: a root, or an author either walk follows (their statements
// and ratings would count). Answers whose walks miss them stay complete.
// People outside the frontier the sync follows (base) were never asked for
// either: a question's own roots and whom they reach, and, while the
// frontier is behind the heap, whom a new hop reaches; they count when the
// question's frontier is not cut (a cut says frontier-truncated).
//
// During a first sync every member is pending and the frontier is behind
// after each commit: at 300,000 people, looking each member up by pubkey
// took 0.15 s per question. The members' nodes are kept per list
// (pendingNodes), and the count until the heap, the walks, the frontiers or
// the list change (reachedCount).
func (r *Resolver) unfetchedReached(v heap.View, w walks, fr, base *frontier.Result) int {
	if r.fetching == nil {
		return 0
	}
	members, behind := r.fetching.NotYetFetched()
	key := reachedKey{version: v.Version(), trust: w.trust, rating: w.rating, fr: fr, base: base, members: firstOf(members), count: len(members), behind: behind}
	if n, ok := r.reached.get(key); ok {
		return n
	}
	n := 0
	for word, set := range r.pending.of(v, members) {
		for ; set != 0; set &= set - 1 {
			if w.reaches(heap.NodeID(word*64 + bits.TrailingZeros64(set))) {
				n++
			}
		}
	}
	for _, root := range fr.Roots {
		if _, pending := slices.BinarySearch(members, root); !pending {
			continue
		}
		if _, held := v.Pubkey(root); !held {
			n++ // a root is never fetched until a relay gives it; held, the loop counted it
		}
	}
	extra := slices.ContainsFunc(fr.Roots, func(root string) bool { return !slices.Contains(base.Roots, root) })
	if (behind || extra) && !fr.Truncated() {
		n += w.reachedBeyond(base)
		for _, root := range fr.Roots {
			if _, held := v.Pubkey(root); !held && !slices.Contains(base.Roots, root) {
				n++ // a question's root nothing is held of
			}
		}
	}
	r.reached.put(key, n)
	return n
}

// reaches reports whether either walk follows id.
func (w walks) reaches(id heap.NodeID) bool {
	if _, ok := w.trust.depthOf(id); ok {
		return true
	}
	_, ok := w.rating.depthOf(id)
	return ok
}

// reachedBeyond counts the nodes either walk follows that base does not
// hold. Every node is looked at, cheapest test first: most are either not
// reached or members of base.
func (w walks) reachedBeyond(base *frontier.Result) int {
	trust, rating := w.trust.nodes, w.rating.nodes
	n := 0
	for i := range trust {
		if trust[i].depth < 0 && (i >= len(rating) || rating[i].depth < 0) {
			continue
		}
		id := heap.NodeID(i)
		if _, in := base.NodeDepth(id); !in && w.reaches(id) {
			n++
		}
	}
	return n
}

// firstOf is the address of a list's first element: with its length, what
// tells one list from another (NotYetFetched replaces its list when it
// changes, never changing one in place).
func firstOf(list []string) *string {
	if len(list) == 0 {
		return nil
	}
	return &list[0]
}

// pendingNodes are the heap nodes of one list of members not yet fetched,
// as a set of node ids (a bit each), so that counting reads the walks'
// arrays in order. Node ids never change in a heap's life: a new list takes
// the ids of the members the last one had (both sorted: a merge, not a
// lookup per member; during a first sync the list changes at every fetch),
// and members with no node are looked up again at each new heap version (a
// commit may give them one).
type pendingNodes struct {
	mu      sync.Mutex
	members []string      // the list; kept, so its first element's address is not reused
	ids     []heap.NodeID // by member; heap.NoNode for none
	set     []uint64      // the ids held, a bit each
	missing int           // members with no node
	version uint64
}

// of returns the set of the nodes of members in view v; it is never
// changed once returned.
func (p *pendingNodes) of(v heap.View, members []string) []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	same := len(members) == len(p.members) && firstOf(members) == firstOf(p.members)
	if same && (p.missing == 0 || p.version == v.Version()) {
		return p.set
	}
	ids := make([]heap.NodeID, len(members))
	set := make([]uint64, (v.NumNodes()+63)/64)
	missing, j := 0, 0
	for i, m := range members {
		for j < len(p.members) && p.members[j] < m {
			j++
		}
		id := heap.NoNode
		if j < len(p.members) && p.members[j] == m {
			id = p.ids[j]
		}
		if id == heap.NoNode {
			if n, ok := v.Pubkey(m); ok {
				id = n
			} else {
				missing++
			}
		}
		if ids[i] = id; id != heap.NoNode {
			set[id/64] |= 1 << (id % 64)
		}
	}
	p.members, p.ids, p.set, p.missing, p.version = members, ids, set, missing, v.Version()
	return set
}

// reachedCount keeps the last count unfetchedReached made, for the next
// question asked with the same walks, frontiers and members at the same
// heap version.
type reachedCount struct {
	mu  sync.Mutex
	key reachedKey
	n   int
	ok  bool
}

type reachedKey struct {
	version       uint64
	trust, rating *walk
	fr, base      *frontier.Result
	members       *string
	count         int
	behind        bool
}

func (c *reachedCount) get(k reachedKey) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.ok && c.key == k
}

func (c *reachedCount) put(k reachedKey, n int) {
	c.mu.Lock()
	c.key, c.n, c.ok = k, n, true
	c.mu.Unlock()
}
