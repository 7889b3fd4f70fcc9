package reposync

import (
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// ChunkSize is how many repository references or root ids one filter names.
const ChunkSize = 100

// Layer is which of the design's filter layers a filter belongs to; events
// are counted by it.
type Layer int

// The layers. The design puts state (30618) in layer 1; here it has its own
// filters, by maintainer and repository id, because a bare {kinds:[30618]}
// brought every other repository's state only to be refused.
const (
	LayerAnnouncements Layer = 1 // {kinds:[30617]} and the state filters
	LayerRepos         Layer = 2 // #a, #A, #q over repository references
	LayerRoots         Layer = 3 // #e, #E, #q over root event ids
)

func (l Layer) String() string {
	switch l {
	case LayerAnnouncements:
		return "layer1"
	case LayerRepos:
		return "layer2"
	case LayerRoots:
		return "layer3"
	}
	return "layer?"
}

// LayerFilter is one filter and its layer.
type LayerFilter struct {
	Layer  Layer
	Filter nostr.Filter
}

// Filters builds the filters for refs and roots: layer 1 when announcements
// is set (a new connection; incremental updates never repeat it), state
// filters and layer 2 for refs, layer 3 for roots, in chunks of ChunkSize and
// one tag letter per filter (different tag keys inside one filter AND).
func Filters(refs []RepoRef, roots []string, maintainers func(RepoRef) []string, announcements bool) []LayerFilter {
	var out []LayerFilter
	if announcements {
		out = append(out, LayerFilter{LayerAnnouncements, nostr.Filter{Kinds: []int{KindAnnouncement}}})
	}
	for chunk := range slices.Chunk(refs, ChunkSize) {
		out = append(out, LayerFilter{LayerAnnouncements, stateFilter(chunk, maintainers)})
		values := make([]string, len(chunk))
		for i, r := range chunk {
			values[i] = string(r)
		}
		for _, letter := range []string{"a", "A", "q"} {
			out = append(out, LayerFilter{LayerRepos, nostr.Filter{Tags: nostr.TagMap{letter: values}}})
		}
	}
	for chunk := range slices.Chunk(roots, ChunkSize) {
		for _, letter := range []string{"e", "E", "q"} {
			out = append(out, LayerFilter{LayerRoots, nostr.Filter{Tags: nostr.TagMap{letter: chunk}}})
		}
	}
	return out
}

// StateFilters ask for the state of refs by their maintainers alone: a
// maintainer set changed.
func StateFilters(refs []RepoRef, maintainers func(RepoRef) []string) []LayerFilter {
	var out []LayerFilter
	for chunk := range slices.Chunk(refs, ChunkSize) {
		out = append(out, LayerFilter{LayerAnnouncements, stateFilter(chunk, maintainers)})
	}
	return out
}

// stateFilter asks for the 30618 of chunk's repositories by their
// maintainers.
func stateFilter(chunk []RepoRef, maintainers func(RepoRef) []string) nostr.Filter {
	var authors, ds []string
	for _, ref := range chunk {
		_, d, _ := ParseRef(string(ref))
		ds = append(ds, d)
		authors = append(authors, maintainers(ref)...)
	}
	slices.Sort(authors)
	slices.Sort(ds)
	return nostr.Filter{Kinds: []int{KindState}, Authors: slices.Compact(authors), Tags: nostr.TagMap{"d": slices.Compact(ds)}}
}

// RelayFilters is the full filter set of one sync relay's connection.
func RelayFilters(p *Plan, ix *Index, relay string) []LayerFilter {
	refs := p.RelayRepos(relay)
	var roots []string
	for _, ref := range refs {
		roots = append(roots, p.Roots(ref)...)
	}
	return Filters(refs, roots, ix.Maintainers, true)
}
