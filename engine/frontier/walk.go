// Package frontier computes the sync frontier (SPEC §5): the authors whose
// events are fetched, found breadth-first over active positive hops from all
// roots, with caps that each record how much they cut.
package frontier

import (
	"cmp"
	"encoding/hex"
	"slices"
	"strings"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/status"
)

// Truncation reasons (SPEC §5). The heap reasons are heap.ReasonNodeLimit and
// heap.ReasonEdgeLimit.
const (
	ReasonMaxDepth           = "maxDepth"
	ReasonMaxAuthorsPerLevel = "maxAuthorsPerLevel"
	ReasonMaxTotalAuthors    = "maxTotalAuthors"
	ReasonMaxEvents          = "maxEvents"
	ReasonMaxRatingEvents    = "maxRatingEvents"
	ReasonMaxDiscoveryEvents = "maxDiscoveryEvents"
)

// Params are the inputs of one walk.
type Params struct {
	Roots  []string // hex pubkeys; invalid ones are ignored
	Limits status.Limits
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
	Roots        []string // the valid roots walked, sorted
	Authors      []Author // walk order: by depth, then hex
	ByDepth      []int    // authors per depth
	Truncation   []status.Truncation
	GraphVersion uint64 // heap version the walk saw
	// NextChange is the earliest unix time after the walk at which a hop of a
	// walked author enters or leaves its window (0 = none): the frontier may
	// differ from then on.
	NextChange int64

	byPubkey map[string]int32
	byNode   map[heap.NodeID]int32
}

// Size is the number of authors.
func (r *Result) Size() int { return len(r.Authors) }

// Depth reports a pubkey's depth, if it is in the frontier.
func (r *Result) Depth(pubkey string) (int, bool) {
	i, ok := r.byPubkey[pubkey]
	if !ok {
		return 0, false
	}
	return r.Authors[i].Depth, true
}

// NodeDepth is Depth for a heap node of the heap the walk ran on.
func (r *Result) NodeDepth(n heap.NodeID) (int, bool) {
	i, ok := r.byNode[n]
	if !ok {
		return 0, false
	}
	return r.Authors[i].Depth, true
}

// Path is the hop path root → … → pubkey that found pubkey, or nil.
func (r *Result) Path(pubkey string) []string {
	i, ok := r.byPubkey[pubkey]
	if !ok {
		return nil
	}
	path := make([]string, r.Authors[i].Depth+1)
	for k := int(i); k >= 0; k = r.Authors[k].Parent {
		path[r.Authors[k].Depth] = r.Authors[k].Pubkey
	}
	return path
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
	pubkey string // set for roots; other candidates are heap nodes
	order  uint64 // heap.View.OrderKey of node
	node   heap.NodeID
	parent int32
}

// marks on heap nodes during a walk.
const (
	markNone uint8 = iota
	markAdmitted
	markCandidate
)

// Walk computes the frontier over the heap view v.
//
// Level 0 is the roots; level d+1 is every pubkey an admitted level-d author
// has an active positive hop to that is not admitted yet, in hex order. Each
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
	depthCap := min(max(p.Limits.MaxDepth, 0), status.MaxDepthHardCap)
	r := &Result{
		Roots:        normalizeRoots(p.Roots),
		GraphVersion: v.Version(),
		byPubkey:     make(map[string]int32),
		byNode:       make(map[heap.NodeID]int32),
	}
	freezeReason := ""
	if p.Frozen != nil {
		freezeReason = v.LimitReason()
	}
	marks := make([]uint8, v.NumNodes())
	cutBy := make(map[heap.NodeID]string)
	cuts := make(map[string]int) // roots with no heap node: never found again

	cut := func(c candidate, reason string) {
		if c.node == heap.NoNode {
			cuts[reason]++
			return
		}
		marks[c.node] = markNone
		if _, seen := cutBy[c.node]; !seen {
			cutBy[c.node] = reason
		}
	}

	level := make([]candidate, 0, len(r.Roots))
	for _, pk := range r.Roots {
		n, ok := v.Pubkey(pk)
		if !ok {
			n = heap.NoNode
		}
		level = append(level, candidate{pubkey: pk, node: n, parent: -1})
	}
	var hops []heap.NodeID
	for depth := 0; len(level) > 0; depth++ {
		if depth > depthCap {
			for _, c := range level {
				cut(c, ReasonMaxDepth)
			}
			break
		}
		if freezeReason != "" && depth > 0 {
			kept := level[:0]
			for _, c := range level {
				if _, was := p.Frozen.byNode[c.node]; was {
					kept = append(kept, c)
				} else {
					cut(c, freezeReason)
				}
			}
			level = kept
		}
		if p.Limits.MaxAuthorsPerLevel > 0 {
			level = limitLevel(level, p.Limits.MaxAuthorsPerLevel, ReasonMaxAuthorsPerLevel, cut)
		}
		if p.Limits.MaxTotalAuthors > 0 {
			level = limitLevel(level, max(p.Limits.MaxTotalAuthors-len(r.Authors), 0), ReasonMaxTotalAuthors, cut)
		}
		if len(level) == 0 {
			break
		}

		first := len(r.Authors)
		for _, c := range level {
			if c.pubkey == "" {
				c.pubkey = v.Text(c.node)
			}
			idx := int32(len(r.Authors))
			r.Authors = append(r.Authors, Author{Pubkey: c.pubkey, Depth: depth, Parent: int(c.parent), node: c.node})
			r.byPubkey[c.pubkey] = idx
			if c.node != heap.NoNode {
				r.byNode[c.node] = idx
				marks[c.node] = markAdmitted
				delete(cutBy, c.node)
			}
		}
		r.ByDepth = append(r.ByDepth, len(level))

		next := []candidate{}
		for i := first; i < len(r.Authors); i++ {
			if r.Authors[i].node == heap.NoNode {
				continue
			}
			var change int64
			hops, change = v.Hops(r.Authors[i].node, p.Now, hops[:0])
			if change != 0 && (r.NextChange == 0 || change < r.NextChange) {
				r.NextChange = change
			}
			for _, t := range hops {
				if marks[t] != markNone {
					continue
				}
				marks[t] = markCandidate
				next = append(next, candidate{node: t, order: v.OrderKey(t), parent: int32(i)})
			}
		}
		slices.SortFunc(next, func(a, b candidate) int {
			if c := cmp.Compare(a.order, b.order); c != 0 {
				return c
			}
			if v.Less(a.node, b.node) {
				return -1
			}
			return 1
		})
		level = next
	}

	for _, reason := range cutBy {
		cuts[reason]++
	}
	for _, reason := range []string{ReasonMaxDepth, ReasonMaxAuthorsPerLevel, ReasonMaxTotalAuthors, heap.ReasonNodeLimit, heap.ReasonEdgeLimit} {
		if cuts[reason] > 0 {
			r.Truncation = append(r.Truncation, status.Truncation{Reason: reason, Cut: cuts[reason]})
		}
	}
	return r
}

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
