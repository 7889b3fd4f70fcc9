package store

// indexedTags are the tag letters the tag index holds. Every event costs one
// B-tree insert per indexed tag, so only the letters filters select on are
// kept: our trust sync (#d #i #k #p #s), repository sync (NIP-34: #a #A #d #e
// #E #q), and what NIP-01 clients commonly ask of these kinds (#t hashtags,
// #r NIP-34 earliest commit, NIP-22/73 #I #K #P). A filter on any other letter
// (#v, #c, #l, #x ...) is still answered exactly: it scans by its other terms
// and checks the tags themselves.
const indexedTags = "aAdeEiIkKpPqrst"

// isIndexedTag reports whether the tag index holds tags named name.
func isIndexedTag(name string) bool {
	for i := range len(indexedTags) {
		if len(name) == 1 && name[0] == indexedTags[i] {
			return true
		}
	}
	return false
}
