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
	context    string
	scope      string
	nextChange int64    // unix time after which the walk may differ; 0 = never
	absent     []string // roots that had no node
	rootRank   map[heap.NodeID]int
	// read holds, for every author whose opinions the walk read, those
	// opinions as it counted them: what a commit that changes the author
	// takes back (catchUp).
	read map[heap.NodeID]readOpinions
}

// readOpinions are an author's opinions as a walk counted them, at depth
// level (the author's depth + 1), sorted by subject.
type readOpinions struct {
	level int8
	ops   []heap.Opinion
}

func newWalk(v heap.View, rootKeys []string, p walkParams, now int64) *walk {
	w := &walk{nodes: make([]reach, v.NumNodes()), threshold: p.threshold, maxDegree: p.maxDegree,
		context: p.context, scope: p.scope, rootRank: map[heap.NodeID]int{}, read: map[heap.NodeID]readOpinions{}}
	for i := range w.nodes {
		w.nodes[i] = reach{depth: -1, parent: heap.NoNode}
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
			w.rootRank[n] = len(level)
			level = append(level, n)
		}
	}
	// During level d, X account hints bind only when their authors are
	// followed at depth d or nearer, as in the frontier walk (SPEC §6.3).
	depth := 0
	trusted := func(a heap.NodeID) bool { return int(w.nodes[a].depth) <= depth && w.follows(a) }
	var opinions []heap.Opinion
	var keyed []keyedNode
	for ; depth+1 < p.maxDegree && len(level) > 0; depth++ {
		var next []heap.NodeID
		// whom trusted accepts stays the same through a level (nodes it
		// reaches are a level deeper): an X account's binding is read once
		// a level, not at every opinion about it (a restart's first answer
		// at 300,000 people: 3.1 s without, 1.1 s with)
		lv := v.WithBindings()
		for _, n := range level {
			if !w.follows(n) {
				continue
			}
			var change int64
			opinions, change = lv.Opinions(n, p.context, p.scope, now, trusted, opinions[:0])
			w.nextChange = earliestChange(w.nextChange, change)
			w.read[n] = readOpinions{level: int8(depth + 1), ops: sortedOpinions(slices.Clone(opinions))}
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
		keyed = sortByKey(v, next, keyed[:0])
		level = next
	}
	return w
}

// keyedNode is a node beside its OrderKey.
type keyedNode struct {
	key [4]uint64
	n   heap.NodeID
}

// sortByKey sorts pubkey nodes as their hex does, reading each key once:
// looking both keys up at every comparison cost 0.4-1.1 s of a restart's
// first answer at 300,000 people (its two walks). keyed is scratch space,
// returned for the next call.
func sortByKey(v heap.View, nodes []heap.NodeID, keyed []keyedNode) []keyedNode {
	keyed = slices.Grow(keyed, len(nodes))
	for _, n := range nodes {
		keyed = append(keyed, keyedNode{v.OrderKey(n), n})
	}
	slices.SortFunc(keyed, func(a, b keyedNode) int { return compareKeys(a.key, b.key) })
	for i, k := range keyed {
		nodes[i] = k.n
	}
	return keyed
}

func sortedOpinions(ops []heap.Opinion) []heap.Opinion {
	slices.SortFunc(ops, func(x, y heap.Opinion) int { return cmp.Compare(x.Subject, y.Subject) })
	return ops
}

// follows reports whether the walk follows n: a root, or a node whose trust
// percentage at its depth reaches the threshold.
func (w *walk) follows(n heap.NodeID) bool {
	r := &w.nodes[n]
	if r.depth == 0 {
		return true
	}
	// percent ≥ threshold without its division: answers count every node
	// of a walk this way (unfetchedReached)
	scored := int(r.trust) + int(r.distrust)
	return r.followed && scored > 0 && 200*int(r.trust)+scored >= 2*scored*w.threshold
}

// reading reports whether the walk reads n's opinions: n is followed at a
// depth from which the walk goes on.
func (w *walk) reading(n heap.NodeID) bool {
	return w.nodes[n].depth >= 0 && int(w.nodes[n].depth)+1 < w.maxDegree && w.follows(n)
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
// parameters share it, and a commit makes the next query bring it up to date
// (walk.catchUp) rather than walk again, so a question after a commit pays
// for what the commit changed. Every answer is computed from one heap
// version: its walk is exact for that version.
type walkCache struct {
	mu    sync.Mutex
	walks map[walkParams]*cachedWalk
	// computed and caughtUp count walks computed and walks brought up to a
	// newer version (for tests and benchmarks)
	computed, caughtUp atomic.Int64
}

type cachedWalk struct {
	mu      sync.Mutex // held while the walk is computed or brought up to date
	w       *walk
	version uint64 // the heap version w is exact for
}

// maxCachedWalks bounds the cache: parameters come from clients (contexts,
// session roots), so their variety is not ours to bound.
const maxCachedWalks = 16

// get returns the walk for p over view v at now. Walks are computed and
// updated inside a view, so the heap does not move meanwhile, and a walk
// handed out is not changed while its view lasts: only a query at a newer
// version changes it, and the heap moves only when no view holds it (the
// frontier's walks let commits in as they go; a question's view never does).
func (c *walkCache) get(v heap.View, p walkParams, now int64) *walk {
	c.mu.Lock()
	entry := c.walks[p]
	if entry == nil {
		if len(c.walks) >= maxCachedWalks {
			clear(c.walks)
		}
		if c.walks == nil {
			c.walks = make(map[walkParams]*cachedWalk)
		}
		entry = &cachedWalk{}
		c.walks[p] = entry
	}
	c.mu.Unlock()
	entry.mu.Lock()
	defer entry.mu.Unlock()
	version := v.Version()
	switch {
	case entry.w != nil && entry.version == version:
	case entry.w != nil && entry.w.catchUp(v, entry.version, now):
		c.caughtUp.Add(1)
	default:
		entry.w = nil
	}
	// an opinion entered or left its window since the walk
	if entry.w == nil || entry.w.nextChange != 0 && now >= entry.w.nextChange {
		entry.w = newWalk(v, strings.Split(p.roots, ","), p, now)
		c.computed.Add(1)
	}
	entry.version = version
	return entry.w
}
