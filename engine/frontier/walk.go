// Package frontier computes the sync frontier (SPEC §5): the authors whose
// events are fetched, found breadth-first over active positive hops from all
// roots, with caps that each record how much they cut.
package frontier

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Params are the inputs of one walk.
type Params struct {
	Roots  []string // hex pubkeys; invalid ones are ignored
	Limits settings.Limits
	Now    int64 // unix seconds: hops are evaluated at this time
	// Frozen, when the heap is at a limit, is the previous frontier: the walk
	// then admits only its authors (and the roots), so the frontier stops
	// growing; everyone else it finds is cut with the heap's limit reason.
	Frozen *Result
}

// Author is one frontier member.
type Author struct {
	Pubkey string // hex
	Depth  int    // hops from the nearest root; roots are 0
	Parent int    // index in Result.Authors of the author whose hop found it; -1 for roots
	node   heap.NodeID
}

// Result is one computed frontier. It is immutable once returned.
type Result struct {
	Roots      []string // the valid roots walked, sorted
	Authors    []Author // walk order: by depth, then hex
	ByDepth    []int    // authors per depth
	Truncation []status.Truncation
	// GraphVersion is the heap version the walk started on. A walk lets
	// commits in as it goes (heap.View.Yield), so it may also hold some of
	// theirs; each of them asks for a walk of its own (Tracker.Notify).
	GraphVersion uint64
	// NextChange is the earliest unix time after the walk at which a hop of a
	// walked author enters or leaves its window (0 = none): the frontier may
	// differ from then on.
	NextChange int64

	// nodeDepth is, by heap.NodeID, 1 + the depth of an admitted author and
	// 0 for every other node (a dense array: a walk touches most nodes).
	nodeDepth []uint8
}

// Size is the number of authors.
func (r *Result) Size() int { return len(r.Authors) }

// index finds a pubkey in Authors. Each depth's run of Authors is in hex
// order, so this is one binary search per depth.
func (r *Result) index(pubkey string) (int, bool) {
	start := 0
	for _, n := range r.ByDepth {
		level := r.Authors[start : start+n]
		if i, ok := slices.BinarySearchFunc(level, pubkey, func(a Author, pk string) int { return strings.Compare(a.Pubkey, pk) }); ok {
			return start + i, true
		}
		start += n
	}
	return 0, false
}

// Depth reports a pubkey's depth, if it is in the frontier.
func (r *Result) Depth(pubkey string) (int, bool) {
	i, ok := r.index(pubkey)
	if !ok {
		return 0, false
	}
	return r.Authors[i].Depth, true
}

// NodeDepth is Depth for a heap node of the heap the walk ran on.
func (r *Result) NodeDepth(n heap.NodeID) (int, bool) {
	if int(n) >= len(r.nodeDepth) || r.nodeDepth[n] == 0 {
		return 0, false
	}
	return int(r.nodeDepth[n]) - 1, true
}

// Path is the hop path root → … → pubkey that found pubkey, or nil.
func (r *Result) Path(pubkey string) []string {
	i, ok := r.index(pubkey)
	if !ok {
		return nil
	}
	path := make([]string, r.Authors[i].Depth+1)
	for k := i; k >= 0; k = r.Authors[k].Parent {
		path[r.Authors[k].Depth] = r.Authors[k].Pubkey
	}
	return path
}

// contains reports whether author a of another walk over the same heap is
// in this frontier.
func (r *Result) contains(a Author) bool {
	if a.node != heap.NoNode {
		_, ok := r.NodeDepth(a.node)
		return ok
	}
	_, ok := r.index(a.Pubkey) // a root the heap did not hold then; it may now
	return ok
}

// Pubkeys are the frontier's authors, sorted.
func (r *Result) Pubkeys() []string {
	out := make([]string, len(r.Authors))
	for i, a := range r.Authors {
		out[i] = a.Pubkey
	}
	slices.Sort(out)
	return out
}

// Truncated reports whether any cap cut the walk.
func (r *Result) Truncated() bool { return len(r.Truncation) > 0 }

// candidate is an author found for the next level.
type candidate struct {
	// order is heap.View.OrderKey of node (every hop leads to a pubkey
	// node): it sorts a level in hex order and is the pubkey's raw bytes.
	order  [4]uint64
	pubkey string // set for roots; other candidates are heap nodes
	node   heap.NodeID
	parent int32
}

func compareCandidates(a, b candidate) int {
	for w := range a.order {
		if c := cmp.Compare(a.order[w], b.order[w]); c != 0 {
			return c
		}
	}
	return 0
}

// marks on heap nodes during a walk.
const (
	markNone uint8 = iota
	markAdmitted
	markCandidate
)

// cutReasons are the reasons a walk can cut an author, in report order; a
// walk records a cut node's first reason as 1 + its index here.
var cutReasons = []string{status.ReasonMaxDepth, status.ReasonMaxAuthorsPerLevel, status.ReasonMaxTotalAuthors, status.ReasonHeapNodeLimit, status.ReasonHeapEdgeLimit}

// Walk computes the frontier over the heap view v.
//
// Level 0 is the roots; level d+1 is every pubkey an admitted level-d author
// has an active positive hop to that is not admitted yet, in hex order. An X
// account hop counts when the hints binding it come from authors admitted at
// levels 0..d. Each
// level is then cut, in this order, by the heap freeze (levels > 0, only when
// Frozen is set), maxAuthorsPerLevel (keep the first N) and maxTotalAuthors
// (keep what still fits); a level deeper than maxDepth (clamped to 0..5) is
// cut whole.
//
// Cut counts: each distinct author the walk found but did not admit counts
// once, under the first cap that excluded it. An author cut at one level and
// admitted at a deeper one (found again through another author) is not
// counted. So the cuts add up to (authors found) − (authors admitted).
func Walk(v heap.View, p Params) *Result {
	depthCap := min(max(p.Limits.MaxDepth, 0), settings.MaxDepthHardCap)
	w := newWalker(v, p)
	r := w.r
	level := make([]candidate, 0, len(r.Roots))
	for _, pk := range r.Roots {
		n, ok := v.Pubkey(pk)
		if !ok {
			n = heap.NoNode
		}
		level = append(level, candidate{pubkey: pk, node: n, parent: -1})
	}
	var hops []heap.NodeID
	var spare []candidate
	var text []byte
	for depth := 0; len(level) > 0; depth++ {
		var first int
		w.outside(func() { level, first = w.admitLevel(level, depth, depthCap, &text) })
		if len(level) == 0 {
			break
		}
		var next []candidate
		next, hops = w.expand(first, spare[:0], hops)
		level, spare = next, level[:0] // level is consumed: its memory holds the level after next
	}
	w.report()
	return r
}

// admitLevel cuts level by the caps and admits what is left at depth. It
// returns what it admitted, none when the walk ends there, and where that
// starts in Authors. It reads nothing of the heap.
func (w *walker) admitLevel(level []candidate, depth, depthCap int, text *[]byte) ([]candidate, int) {
	if depth > depthCap {
		for _, c := range level {
			w.cut(c, status.ReasonMaxDepth)
		}
		return nil, 0
	}
	if level = w.limit(level, depth); len(level) == 0 {
		return nil, 0
	}
	first := len(w.r.Authors)
	w.r.admit(level, depth, text)
	for _, c := range level {
		if c.node != heap.NoNode {
			w.marks[c.node] = markAdmitted
			w.cutBy[c.node] = 0
		}
	}
	w.r.ByDepth = append(w.r.ByDepth, len(level))
	return level, first
}

// walker is one Walk's state beside its Result: the marks on heap nodes
// and the cut counts.
type walker struct {
	v            heap.View
	p            Params
	r            *Result
	freezeReason string   // the heap's limit reason when the walk is frozen
	reasons      []string // cutReasons, and freezeReason when it is none of them
	marks        []uint8  // by node
	cutBy        []uint8  // by node: 1 + index in reasons of the first cut of a node not (yet) admitted
	cuts         []int    // by reason: roots with no heap node (never found again), then report's tally
}

func newWalker(v heap.View, p Params) *walker {
	w := &walker{v: v, p: p, r: &Result{
		Roots:        normalizeRoots(p.Roots),
		GraphVersion: v.Version(),
		nodeDepth:    make([]uint8, v.NumNodes()),
	}}
	if p.Frozen != nil {
		w.freezeReason = v.LimitReason()
	}
	// A reason outside cutReasons still counts as a node's first cut; it
	// is just not reported.
	w.reasons = cutReasons
	if w.freezeReason != "" && !slices.Contains(w.reasons, w.freezeReason) {
		w.reasons = append(slices.Clip(w.reasons), w.freezeReason)
	}
	w.marks = make([]uint8, v.NumNodes())
	w.cutBy = make([]uint8, v.NumNodes())
	w.cuts = make([]int, len(w.reasons))
	return w
}

func (w *walker) cut(c candidate, reason string) {
	i := slices.Index(w.reasons, reason)
	if c.node == heap.NoNode {
		w.cuts[i]++
		return
	}
	w.marks[c.node] = markNone
	if w.cutBy[c.node] == 0 {
		w.cutBy[c.node] = uint8(i + 1)
	}
}

// limit cuts a level by the heap freeze (below the roots), then
// maxAuthorsPerLevel, then maxTotalAuthors, and returns what is left.
func (w *walker) limit(level []candidate, depth int) []candidate {
	if w.freezeReason != "" && depth > 0 {
		kept := level[:0]
		for _, c := range level {
			if _, was := w.p.Frozen.NodeDepth(c.node); was {
				kept = append(kept, c)
			} else {
				w.cut(c, w.freezeReason)
			}
		}
		level = kept
	}
	if l := w.p.Limits; l.MaxAuthorsPerLevel > 0 {
		level = limitLevel(level, l.MaxAuthorsPerLevel, status.ReasonMaxAuthorsPerLevel, w.cut)
	}
	if l := w.p.Limits; l.MaxTotalAuthors > 0 {
		level = limitLevel(level, max(l.MaxTotalAuthors-len(w.r.Authors), 0), status.ReasonMaxTotalAuthors, w.cut)
	}
	return level
}

// expand appends to next the level after the authors admitted from first
// on: every node they have an active hop to that is not marked yet, in hex
// order. Only authors admitted so far (this level and above) bind X
// accounts with their hints: a stranger cannot redirect a hop (SPEC §6.3).
// hops is scratch space, returned for the next call.
func (w *walker) expand(first int, next []candidate, hops []heap.NodeID) ([]candidate, []heap.NodeID) {
	r := w.r
	admitted := func(a heap.NodeID) bool { return w.marks[a] == markAdmitted }
	lv := w.v.WithBindings() // admitted stays as it is until the next level
	for i := first; i < len(r.Authors); i++ {
		if r.Authors[i].node == heap.NoNode {
			continue
		}
		w.yield()
		var change int64
		hops, change = lv.Hops(r.Authors[i].node, w.p.Now, admitted, hops[:0])
		if change != 0 && (r.NextChange == 0 || change < r.NextChange) {
			r.NextChange = change
		}
		for _, t := range hops {
			if w.marks[t] != markNone {
				continue
			}
			w.marks[t] = markCandidate
			next = append(next, candidate{order: w.v.OrderKey(t), node: t, parent: int32(i)})
		}
	}
	w.outside(func() { slices.SortFunc(next, compareCandidates) })
	return next, hops
}

// yield lets a commit waiting for the heap in (heap.View.Yield), and
// outside runs fn, which reads nothing of the heap, with the heap's lock
// given up (heap.View.Outside): a walk of 300,000 people takes 0.4 s or
// more, and a commit, with every question behind it, waited for all of it.
// Both make room in the walk's arrays for the nodes commits added meanwhile.
func (w *walker) yield() {
	if w.v.Yield() {
		w.grow()
	}
}

func (w *walker) outside(fn func()) {
	w.v.Outside(fn)
	w.grow()
}

func (w *walker) grow() {
	if added := w.v.NumNodes() - len(w.marks); added > 0 {
		none := make([]uint8, added)
		w.marks = append(w.marks, none...)
		w.cutBy = append(w.cutBy, none...)
		w.r.nodeDepth = append(w.r.nodeDepth, none...)
	}
}

// report counts each node cut and never admitted under its first reason,
// and records the reported reasons that cut any.
func (w *walker) report() {
	for _, code := range w.cutBy {
		if code != 0 {
			w.cuts[code-1]++
		}
	}
	for i, reason := range cutReasons {
		if w.cuts[i] > 0 {
			w.r.Truncation = append(w.r.Truncation, status.Truncation{Reason: reason, Cut: w.cuts[i]})
		}
	}
}

// admit appends level to Authors at depth. The pubkeys of heap nodes are
// rendered from their order keys (the raw key bytes) into one buffer and cut
// from a single string: one allocation per level rather than per author, and
// no trip back to the node table.
func (r *Result) admit(level []candidate, depth int, text *[]byte) {
	buf := (*text)[:0]
	for _, c := range level {
		if c.pubkey == "" {
			buf = appendHexKey(buf, c.order)
		}
	}
	*text = buf
	all := string(buf)
	r.Authors = slices.Grow(r.Authors, len(level))
	for _, c := range level {
		pubkey := c.pubkey
		if pubkey == "" {
			pubkey, all = all[:hexKeyLen], all[hexKeyLen:]
		}
		r.Authors = append(r.Authors, Author{Pubkey: pubkey, Depth: depth, Parent: int(c.parent), node: c.node})
		if c.node != heap.NoNode {
			r.nodeDepth[c.node] = uint8(depth + 1)
		}
	}
}

// appendHexKey appends the hex pubkey whose heap.View.OrderKey is order.
func appendHexKey(buf []byte, order [4]uint64) []byte {
	var raw [32]byte
	for w, x := range order {
		binary.BigEndian.PutUint64(raw[8*w:], x)
	}
	return hex.AppendEncode(buf, raw[:])
}

// hexKeyLen is the length of a hex pubkey.
const hexKeyLen = 64

// limitLevel keeps the first n candidates and cuts the rest with reason.
// (A non-positive cap in Limits means "no cap": callers skip the call.)
func limitLevel(level []candidate, n int, reason string, cut func(candidate, string)) []candidate {
	if len(level) <= n {
		return level
	}
	for _, c := range level[n:] {
		cut(c, reason)
	}
	return level[:n]
}

// normalizeRoots lower-cases, validates, dedupes and sorts hex pubkeys.
func normalizeRoots(roots []string) []string {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		r = strings.ToLower(r)
		if len(r) != 64 {
			continue
		}
		if _, err := hex.DecodeString(r); err != nil {
			continue
		}
		out = append(out, r)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
