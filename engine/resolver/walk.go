package resolver

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"dtp-personal/engine/heap"
)

// walkParams are what a walk depends on besides the heap: the same
// parameters give the same walk for every subject.
type walkParams struct {
	roots          string // the roots' hex, sorted, comma-joined
	context, scope string
	maxDegree      int
	threshold      int // follow threshold: 1 for the ratings walk
}

// reach is one node as the walk found it.
type reach struct {
	depth    int8 // hops from the nearest root; -1 = not reached
	followed bool // reached by a trust at depth: queued for the next level
	trust    int32
	distrust int32
	neutral  int32
	parent   heap.NodeID // the first author at depth-1 whose trust reached it
}

// walk is the extension's trust walk (IndexResolver), run from every root at
// once: level d+1 is the pubkeys that followed authors of level d hold
// opinions of (Opinions: the query context, its parents, then global). A
// node counts only the opinions of the level that first reached it; it is
// queued when one of them is a trust, and followed (its own opinions and its
// statements counted) when its percentage reaches the threshold. Roots are
// always followed. Levels stop at maxDegree-1: evidence comes from depths
// 0..maxDegree-1, as the extension's loop (degree < maxDepth) takes it.
//
// The walk does not depend on the subject, so one walk answers every query
// with its parameters until the heap changes what it read (or an opinion's
// window opens or closes, at nextChange): see carriesTo.
type walk struct {
	nodes      []reach
	threshold  int
	maxDegree  int
	nextChange int64    // unix time after which the walk may differ; 0 = never
	absent     []string // roots that had no node
}

func newWalk(v heap.View, rootKeys []string, p walkParams, now int64) *walk {
	w := &walk{nodes: make([]reach, v.NumNodes()), threshold: p.threshold, maxDegree: p.maxDegree}
	for i := range w.nodes {
		w.nodes[i].depth = -1
	}
	var level []heap.NodeID
	for _, pk := range rootKeys {
		n, ok := v.Pubkey(pk)
		if !ok {
			w.absent = append(w.absent, pk)
			continue
		}
		if w.nodes[n].depth < 0 {
			w.nodes[n] = reach{depth: 0, followed: true, parent: heap.NoNode}
			level = append(level, n)
		}
	}
	// During level d, X account hints bind only when their authors are
	// followed at depth d or nearer, as in the frontier walk (SPEC §6.3).
	depth := 0
	trusted := func(a heap.NodeID) bool { return int(w.nodes[a].depth) <= depth && w.follows(a) }
	var opinions []heap.Opinion
	for ; depth+1 < p.maxDegree && len(level) > 0; depth++ {
		var next []heap.NodeID
		for _, n := range level {
			if !w.follows(n) {
				continue
			}
			var change int64
			opinions, change = v.Opinions(n, p.context, p.scope, now, trusted, opinions[:0])
			w.nextChange = earliestChange(w.nextChange, change)
			for _, o := range opinions {
				r := &w.nodes[o.Subject]
				switch {
				case r.depth < 0:
					r.depth = int8(depth + 1)
				case int(r.depth) != depth+1:
					continue // reached nearer: farther opinions do not count
				}
				switch o.Value {
				case 1:
					r.trust++
					if !r.followed {
						r.followed, r.parent = true, n
						next = append(next, o.Subject)
					}
				case -1:
					r.distrust++
				default:
					r.neutral++
				}
			}
		}
		// Level order decides each node's parent (the path shown): by pubkey.
		slices.SortFunc(next, func(a, b heap.NodeID) int { return compareKeys(v.OrderKey(a), v.OrderKey(b)) })
		level = next
	}
	return w
}

// follows reports whether the walk follows n: a root, or a node whose trust
// percentage at its depth reaches the threshold.
func (w *walk) follows(n heap.NodeID) bool {
	r := &w.nodes[n]
	if r.depth == 0 {
		return true
	}
	p, ok := percent(int(r.trust), int(r.distrust))
	return r.followed && ok && p >= w.threshold
}

// reads reports whether the walk read n's opinions: n is followed at a
// depth from which the walk goes on.
func (w *walk) reads(n heap.NodeID) bool {
	return int(n) < len(w.nodes) && w.nodes[n].depth >= 0 && int(w.nodes[n].depth)+1 < w.maxDegree && w.follows(n)
}

// carriesTo reports whether the walk, exact for the heap at version since,
// is still exact for view v: no author it read has opinions that may have
// changed since (heap.View.OpinionsChangedSince), and no root it missed has
// a node now. Nothing else a walk reads changes with the heap: a node is
// reached only through the opinions of authors it read.
func (w *walk) carriesTo(v heap.View, since uint64) bool {
	for _, pk := range w.absent {
		if _, ok := v.Pubkey(pk); ok {
			return false
		}
	}
	read := false
	complete := v.OpinionsChangedSince(since, func(author heap.NodeID) bool {
		read = w.reads(author)
		return !read
	})
	return complete && !read
}

// depthOf is n's depth when the walk follows n (its statements count).
func (w *walk) depthOf(n heap.NodeID) (int, bool) {
	if int(n) >= len(w.nodes) || w.nodes[n].depth < 0 || !w.follows(n) {
		return 0, false
	}
	return int(w.nodes[n].depth), true
}

// path is root → … → n along the parents that first trusted each node.
func (w *walk) path(v heap.View, n heap.NodeID) []string {
	var out []string
	for ; n != heap.NoNode; n = w.nodes[n].parent {
		out = append(out, v.Text(n))
	}
	slices.Reverse(out)
	return out
}

// percent is round(100 × trust ÷ (trust + distrust)), rounding halves up as
// the extension's Math.round does; ok is false when nothing counted.
func percent(trust, distrust int) (int, bool) {
	scored := trust + distrust
	if scored == 0 {
		return 0, false
	}
	return (200*trust + scored) / (2 * scored), true
}

func compareKeys(a, b [4]uint64) int {
	for i := range a {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// earliestChange is the earlier of two future times, 0 meaning none.
func earliestChange(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// walkCache keeps one walk per set of parameters: queries with the same
// parameters share it, a walk is computed once even when several queries ask
// for it at the same moment, and a commit that changed nothing it read
// leaves it in place (walk.carriesTo), so a question after such a commit
// pays no walk. Every answer is computed from one heap version: its walk is
// exact for that version.
type walkCache struct {
	mu    sync.Mutex
	walks map[walkParams]*cachedWalk
	// computed and carried count walks computed and walks kept across a
	// commit (for tests and benchmarks)
	computed, carried atomic.Int64
}

type cachedWalk struct {
	once sync.Once
	w    *walk
	// version is the heap version w is exact for, moved on (under the
	// cache's lock) by commits that did not change what w read.
	version uint64
}

// maxCachedWalks bounds the cache: parameters come from clients (contexts,
// session roots), so their variety is not ours to bound.
const maxCachedWalks = 16

// get returns the walk for p over view v at now, computing it if needed.
// A walk is computed inside a view, so while one is being computed the heap
// cannot move: an entry found at another version is complete.
func (c *walkCache) get(v heap.View, p walkParams, now int64) *walk {
	version := v.Version()
	for {
		c.mu.Lock()
		entry := c.walks[p]
		if entry != nil && entry.version != version {
			if entry.w.carriesTo(v, entry.version) {
				entry.version = version
				c.carried.Add(1)
			} else {
				entry = nil
			}
		}
		if entry == nil {
			if len(c.walks) >= maxCachedWalks {
				clear(c.walks)
			}
			if c.walks == nil {
				c.walks = make(map[walkParams]*cachedWalk)
			}
			entry = &cachedWalk{version: version}
			c.walks[p] = entry
		}
		c.mu.Unlock()
		entry.once.Do(func() {
			entry.w = newWalk(v, strings.Split(p.roots, ","), p, now)
			c.computed.Add(1)
		})
		if entry.w.nextChange == 0 || now < entry.w.nextChange {
			return entry.w
		}
		// An opinion entered or left its window since this walk: drop it.
		c.mu.Lock()
		if c.walks[p] == entry {
			delete(c.walks, p)
		}
		c.mu.Unlock()
	}
}
