package reposync

import (
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// chunkSize is how many repository references or root ids one filter names.
const chunkSize = 100

// layer is which of the design's filter layers a filter belongs to; events
// are counted by it.
type layer int

// The layers. The design puts state (30618) in layer 1; here it has its own
// filters, by maintainer and repository id, because a bare {kinds:[30618]}
// brought every other repository's state only to be refused.
const (
	layerAnnouncements layer = 1 // {kinds:[30617]} and the state filters
	layerRepos         layer = 2 // #a, #A, #q over repository references
	layerRoots         layer = 3 // #e, #E, #q over root event ids
)

func (l layer) String() string {
	switch l {
	case layerAnnouncements:
		return "layer1"
	case layerRepos:
		return "layer2"
	case layerRoots:
		return "layer3"
	}
	return "layer?"
}

// layerFilter is one filter and its layer.
type layerFilter struct {
	Layer  layer
	Filter nostr.Filter
}

// filters builds the filters for refs and roots: layer 1 when announcements
// is set (a new connection; incremental updates never repeat it), state
// filters and layer 2 for refs, layer 3 for roots, in chunks of ChunkSize and
// one tag letter per filter (different tag keys inside one filter AND).
func filters(refs []repoRef, roots []string, maintainers func(repoRef) []string, announcements bool) []layerFilter {
	var out []layerFilter
	if announcements {
		out = append(out, layerFilter{layerAnnouncements, nostr.Filter{Kinds: []int{KindAnnouncement}}})
	}
	for chunk := range slices.Chunk(refs, chunkSize) {
		out = append(out, layerFilter{layerAnnouncements, stateFilter(chunk, maintainers)})
		values := make([]string, len(chunk))
		for i, r := range chunk {
			values[i] = string(r)
		}
		for _, letter := range []string{"a", "A", "q"} {
			out = append(out, layerFilter{layerRepos, nostr.Filter{Tags: nostr.TagMap{letter: values}}})
		}
	}
	for chunk := range slices.Chunk(roots, chunkSize) {
		for _, letter := range []string{"e", "E", "q"} {
			out = append(out, layerFilter{layerRoots, nostr.Filter{Tags: nostr.TagMap{letter: chunk}}})
		}
	}
	return out
}

// stateFilters ask for the state of refs by their maintainers alone: a
// maintainer set changed.
func stateFilters(refs []repoRef, maintainers func(repoRef) []string) []layerFilter {
	var out []layerFilter
	for chunk := range slices.Chunk(refs, chunkSize) {
		out = append(out, layerFilter{layerAnnouncements, stateFilter(chunk, maintainers)})
	}
	return out
}

// stateFilter asks for the 30618 of chunk's repositories by their
// maintainers.
func stateFilter(chunk []repoRef, maintainers func(repoRef) []string) nostr.Filter {
	var authors, ds []string
	for _, ref := range chunk {
		_, d, _ := parseRef(string(ref))
		ds = append(ds, d)
		authors = append(authors, maintainers(ref)...)
	}
	slices.Sort(authors)
	slices.Sort(ds)
	return nostr.Filter{Kinds: []int{KindState}, Authors: slices.Compact(authors), Tags: nostr.TagMap{"d": slices.Compact(ds)}}
}

// relayFilters is the full filter set of one sync relay's connection.
func relayFilters(p *plan, ix *index, relay string) []layerFilter {
	refs := p.RelayRepos(relay)
	var roots []string
	for _, ref := range refs {
		roots = append(roots, p.Roots(ref)...)
	}
	return filters(refs, roots, ix.Maintainers, true)
}
