package resolver

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/status"
)

// MaxTrustedPage is the most people one page of Trusted lists.
const MaxTrustedPage = 1000

// TrustedPage is one page of the people the roots trust (GET
// /api/v1/trusted): everyone the question's walk follows, nearest first.
type TrustedPage struct {
	Context      string          `json:"context"`
	Band         Band            `json:"band"`
	GraphVersion uint64          `json:"graphVersion"`
	Total        int             `json:"total"`  // people on every page
	Offset       int             `json:"offset"` // of this page's first person
	People       []TrustedPerson `json:"people"`
	// Next is the offset of the next page, null after the last.
	Next     *int            `json:"next"`
	Coverage status.Coverage `json:"coverage"`
}

// TrustedPerson is one trusted person: an answer about them would be
// "trusted" at this degree, from these counts.
type TrustedPerson struct {
	Pubkey   string `json:"pubkey"`
	Degree   int    `json:"degree"` // hops from the nearest root
	Percent  int    `json:"percent"`
	Trust    int    `json:"trust"`    // trust statements at that degree
	Distrust int    `json:"distrust"` // distrust statements at that degree
}

// Trusted lists the people q's walk (its context, scope, roots and band)
// follows at degrees 1 to the max degree, ordered by degree and then
// pubkey, limit of them from offset. Roots are not listed.
func (r *Resolver) Trusted(ctx context.Context, q Query, offset, limit int) (TrustedPage, error) {
	if err := ctx.Err(); err != nil {
		return TrustedPage{}, err
	}
	if offset < 0 || limit < 1 || limit > MaxTrustedPage {
		return TrustedPage{}, fmt.Errorf("%w: offset must not be negative and limit must be from 1 to %d", ErrBand, MaxTrustedPage)
	}
	band, err := q.band(r.band())
	if err != nil {
		return TrustedPage{}, err
	}
	base := r.frontier.Current()
	fr := base
	if len(q.Roots) > 0 {
		fr = r.frontier.WithRoots(q.Roots)
	}
	page := TrustedPage{Context: q.Context, Band: band, Offset: offset, People: []TrustedPerson{}}
	var limitReason string
	var unfetched int
	r.heap.View(func(v heap.View) {
		page.GraphVersion, limitReason = v.Version(), v.LimitReason()
		tw := r.trustedWalk(v, fr.Roots, q, band)
		unfetched = r.unfetchedReached(v, walks{trust: tw, rating: tw}, fr, base)
		people := trustedPeople(v, tw)
		page.Total = len(people)
		if offset < len(people) {
			page.People = people[offset:min(len(people), offset+limit)]
		}
	})
	if end := offset + len(page.People); end < page.Total {
		page.Next = &end
	}
	page.Coverage = r.coverageOf(fr, false, limitReason, unfetched)
	return page, nil
}

// trustedWalk is the trust walk of a question with one level more than its
// max degree: the people at the max degree are those the deepest authors
// answers take evidence from speak about.
func (r *Resolver) trustedWalk(v heap.View, roots []string, q Query, band Band) *walk {
	p := walkParams{roots: strings.Join(roots, ","), context: q.Context, scope: q.Scope,
		maxDegree: band.MaxDegree + 1, threshold: band.FollowThreshold}
	return r.walks.get(v, p, r.now().Unix())
}

// trustedPeople are the people w follows beyond the roots, nearest first.
func trustedPeople(v heap.View, w *walk) []TrustedPerson {
	var out []TrustedPerson
	for i := range w.nodes {
		n := heap.NodeID(i)
		depth, ok := w.depthOf(n)
		if !ok || depth == 0 {
			continue
		}
		r := &w.nodes[n]
		p, _ := percent(int(r.trust), int(r.distrust))
		out = append(out, TrustedPerson{Pubkey: v.Text(n), Degree: depth, Percent: p, Trust: int(r.trust), Distrust: int(r.distrust)})
	}
	slices.SortFunc(out, func(a, b TrustedPerson) int {
		return cmp.Or(cmp.Compare(a.Degree, b.Degree), strings.Compare(a.Pubkey, b.Pubkey))
	})
	return out
}

// GraphStats are the graph's figures (GET /api/v1/graph/stats): its size,
// the frontier per depth, and the people the roots trust per degree with
// the user's band.
type GraphStats struct {
	heap.Counts
	// Frontier counts whose events are fetched, per depth from the roots.
	Frontier FrontierCounts `json:"frontier"`
	// TrustedByDegree counts the people the roots trust at degrees 1, 2, …
	TrustedByDegree []int  `json:"trustedByDegree"`
	Band            Band   `json:"band"`
	GraphVersion    uint64 `json:"graphVersion"`
}

// FrontierCounts is the frontier's size and its authors per depth.
type FrontierCounts struct {
	Size    int   `json:"size"`
	ByDepth []int `json:"byDepth"`
}

// Stats gathers GraphStats with the user's band, in q's context and scope.
func (r *Resolver) Stats(ctx context.Context, q Query) (GraphStats, error) {
	if err := ctx.Err(); err != nil {
		return GraphStats{}, err
	}
	band := r.band()
	fr := r.frontier.Current()
	st := GraphStats{Counts: r.heap.Counts(), Band: band, TrustedByDegree: make([]int, band.MaxDegree)}
	st.Frontier = FrontierCounts{Size: fr.Size(), ByDepth: append([]int{}, fr.ByDepth...)}
	r.heap.View(func(v heap.View) {
		st.GraphVersion = v.Version()
		for _, p := range trustedPeople(v, r.trustedWalk(v, fr.Roots, q, band)) {
			st.TrustedByDegree[p.Degree-1]++
		}
	})
	return st, nil
}
