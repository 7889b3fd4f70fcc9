package resolver

import (
	"slices"

	"dtp-personal/engine/heap"
)

// catchUp brings the walk, exact for the heap at version since, to view v's
// version without walking again. A commit that changed no author the walk
// read leaves it as it is: a node is reached only through the opinions of
// authors it read. Otherwise the changed authors' opinions are taken back
// and counted again, level by level, and so is whatever that changes: a
// node newly reached and followed counts its opinions at the next level, a
// node no longer followed takes them back, a node reached nearer moves and
// counts them there, a node left without opinions at its depth is looked for
// farther. It reports false when the walk must be computed again: the log no
// longer reaches back to since, a root it missed has a node now, or a node
// whose hints bind X accounts was followed or left (whom those accounts
// stand for then changes for other authors too). On false the walk is left
// half updated and must be dropped.
func (w *walk) catchUp(v heap.View, since uint64, now int64) bool {
	for _, pk := range w.absent {
		if _, ok := v.Pubkey(pk); ok {
			return false
		}
	}
	var changed []heap.NodeID
	if !v.OpinionsChangedSince(since, func(author heap.NodeID) bool {
		if _, ok := w.read[author]; ok {
			changed = append(changed, author)
		}
		return true
	}) {
		return false
	}
	if len(changed) == 0 {
		return true
	}
	for len(w.nodes) < v.NumNodes() {
		w.nodes = append(w.nodes, reach{depth: -1, parent: heap.NoNode})
	}
	u := walkUpdate{w: w, v: v, now: now, dirty: make([][]heap.NodeID, w.maxDegree), touched: make([][]heap.NodeID, w.maxDegree),
		queued: map[atLevel]bool{}, floating: map[heap.NodeID]bool{}, rescan: map[heap.NodeID]bool{}}
	for _, a := range changed {
		u.markDirty(a, int(w.nodes[a].depth))
	}
	return u.run()
}

// walkUpdate is one catchUp in progress.
type walkUpdate struct {
	w   *walk
	v   heap.View
	now int64
	// dirty[d] are authors whose opinions are counted again while level d
	// is gone through; touched[d] are nodes whose counts at depth d changed.
	dirty, touched [][]heap.NodeID
	queued         map[atLevel]bool // in dirty or touched, at that level
	// floating nodes lost every opinion at their depth and are looked for
	// farther; rescan nodes are counted afresh at their depth (their
	// parent left).
	floating, rescan map[heap.NodeID]bool
}

// atLevel is a node in dirty (dirty set) or touched at a level.
type atLevel struct {
	n     heap.NodeID
	level int
	dirty bool
}

func (u *walkUpdate) markDirty(a heap.NodeID, level int) {
	if k := (atLevel{a, level, true}); !u.queued[k] {
		u.queued[k] = true
		u.dirty[level] = append(u.dirty[level], a)
	}
}

func (u *walkUpdate) touch(n heap.NodeID, level int) {
	if k := (atLevel{n, level, false}); !u.queued[k] {
		u.queued[k] = true
		u.touched[level] = append(u.touched[level], n)
	}
}

// run goes down the levels. At level d the opinions counted at depth d are
// final: floating nodes that authors of depth d-1 speak of land there, the
// touched nodes' counts settle, and whether the walk reads each is known;
// then the level's dirty authors count their opinions again, at depth d+1.
func (u *walkUpdate) run() bool {
	w := u.w
	for d := range w.maxDegree {
		if d > 0 {
			for n := range u.floating {
				if u.countAfresh(n, d) {
					delete(u.floating, n)
					u.touch(n, d)
				}
			}
		}
		for _, n := range u.touched[d] {
			r := &w.nodes[n]
			if int(r.depth) != d {
				continue // it moved nearer since, or floats
			}
			if u.rescan[n] {
				delete(u.rescan, n)
				u.countAfresh(n, d)
			}
			if r.trust+r.distrust+r.neutral == 0 {
				*r = reach{depth: -1, parent: heap.NoNode}
				if d+1 < w.maxDegree {
					u.floating[n] = true
				}
			}
			read, was := w.read[n]
			if reading := r.depth >= 0 && w.reading(n); was != reading || was && read.level != int8(d+1) {
				if u.v.HasHints(n) {
					return false
				}
				u.markDirty(n, d)
			}
		}
		if d+1 == w.maxDegree {
			break
		}
		for _, a := range u.dirty[d] {
			if w.nodes[a].depth >= 0 && int(w.nodes[a].depth) != d {
				continue // it moved nearer: counted again at its depth
			}
			u.recount(a)
		}
	}
	return true
}

// recount takes back what author a counted and counts its opinions now at
// its depth + 1 (none when the walk no longer reads it).
func (u *walkUpdate) recount(a heap.NodeID) {
	w := u.w
	old := w.read[a]
	var fresh readOpinions
	if w.reading(a) {
		d := int(w.nodes[a].depth)
		trusted := func(x heap.NodeID) bool { return w.nodes[x].depth >= 0 && int(w.nodes[x].depth) <= d && w.follows(x) }
		ops, change := u.v.Opinions(a, w.context, w.scope, u.now, trusted, nil)
		w.nextChange = earliestChange(w.nextChange, change)
		fresh = readOpinions{level: int8(d + 1), ops: sortedOpinions(ops)}
		w.read[a] = fresh
	} else {
		delete(w.read, a)
	}
	if old.level != fresh.level { // all of them move (or go, or come)
		for _, o := range old.ops {
			u.uncount(a, o, int(old.level))
		}
		for _, o := range fresh.ops {
			u.count(a, o, int(fresh.level))
		}
		return
	}
	level := int(fresh.level)
	i, j := 0, 0
	for i < len(old.ops) || j < len(fresh.ops) {
		switch {
		case j == len(fresh.ops) || i < len(old.ops) && old.ops[i].Subject < fresh.ops[j].Subject:
			u.uncount(a, old.ops[i], level)
			i++
		case i == len(old.ops) || fresh.ops[j].Subject < old.ops[i].Subject:
			u.count(a, fresh.ops[j], level)
			j++
		default: // the same subject
			if old.ops[i].Value != fresh.ops[j].Value {
				u.uncount(a, old.ops[i], level)
				u.count(a, fresh.ops[j], level)
			}
			i++
			j++
		}
	}
}

// count adds author a's opinion o to its subject at depth level, as newWalk
// counts it; a subject reached farther before moves to level.
func (u *walkUpdate) count(a heap.NodeID, o heap.Opinion, level int) {
	r := &u.w.nodes[o.Subject]
	switch {
	case r.depth >= 0 && int(r.depth) < level:
		return // reached nearer: farther opinions do not count
	case r.depth < 0 || int(r.depth) > level:
		*r = reach{depth: int8(level), parent: heap.NoNode}
		delete(u.rescan, o.Subject)
	}
	switch o.Value {
	case 1:
		r.trust++
		if !r.followed || r.parent == heap.NoNode || u.precedes(a, r.parent) {
			r.followed, r.parent = true, a
		}
	case -1:
		r.distrust++
	default:
		r.neutral++
	}
	u.touch(o.Subject, level)
}

// uncount takes author a's opinion o back from its subject at depth level.
func (u *walkUpdate) uncount(a heap.NodeID, o heap.Opinion, level int) {
	r := &u.w.nodes[o.Subject]
	if int(r.depth) != level {
		return // counted nearer, not here
	}
	switch o.Value {
	case 1:
		r.trust--
		if r.parent == a {
			r.followed, r.parent = r.trust > 0, heap.NoNode
			if r.followed {
				u.rescan[o.Subject] = true // its next truster in level order is not kept
			}
		}
	case -1:
		r.distrust--
	default:
		r.neutral--
	}
	u.touch(o.Subject, level)
}

// countAfresh counts node n at depth d from the opinions that authors of
// depth d-1 read of it (its counts and parent as newWalk finds them), and
// reports whether there are any. Their opinions at depth d are final.
func (u *walkUpdate) countAfresh(n heap.NodeID, d int) bool {
	w := u.w
	r := reach{depth: int8(d), parent: heap.NoNode}
	seen := map[heap.NodeID]bool{}
	u.v.Speakers(n, func(b heap.NodeID) {
		read, ok := w.read[b]
		if !ok || int(read.level) != d || seen[b] {
			return
		}
		seen[b] = true
		i, found := slices.BinarySearchFunc(read.ops, n, func(o heap.Opinion, n heap.NodeID) int { return int(o.Subject) - int(n) })
		if !found {
			return
		}
		switch read.ops[i].Value {
		case 1:
			r.trust++
			if !r.followed || u.precedes(b, r.parent) {
				r.followed, r.parent = true, b
			}
		case -1:
			r.distrust++
		default:
			r.neutral++
		}
	})
	if r.trust+r.distrust+r.neutral == 0 {
		return false
	}
	w.nodes[n] = r
	return true
}

// precedes reports whether a comes before b in their level's order (the
// roots' order at depth 0, pubkey order below), which decides parents.
func (u *walkUpdate) precedes(a, b heap.NodeID) bool {
	if u.w.nodes[a].depth == 0 {
		return u.w.rootRank[a] < u.w.rootRank[b]
	}
	return compareKeys(u.v.OrderKey(a), u.v.OrderKey(b)) < 0
}
