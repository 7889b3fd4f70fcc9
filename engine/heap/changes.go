package heap

import "slices"

// opinionLogMax bounds the opinion log; a reader further behind than it
// reaches reads everything again.
const opinionLogMax = 1 << 16

// opinionChange is an author whose Opinions may have changed at version.
type opinionChange struct {
	version uint64
	author  NodeID
}

// opinionLog records, for each applied change, the authors whose Opinions
// it may change: the author of a changed 32009 statement, and every author
// of a statement about an X account whose claimants changed (their
// statement may now stand for another pubkey). A trust walk that read none
// of them is still exact (the resolver keeps it across such commits).
type opinionLog struct {
	since   uint64 // the log holds every change after this version
	entries []opinionChange
	pending []NodeID // noted by the change being applied, stamped by Apply
}

// note records author for the change being applied.
func (l *opinionLog) note(author NodeID) { l.pending = append(l.pending, author) }

// commit stamps the noted authors with version (their change was applied)
// or drops them (it was not).
func (l *opinionLog) commit(applied bool, version uint64) {
	if applied {
		for _, a := range l.pending {
			l.add(version, a)
		}
	}
	l.pending = l.pending[:0]
}

func (l *opinionLog) add(version uint64, author NodeID) {
	if len(l.entries) == opinionLogMax {
		cut := opinionLogMax / 2
		// a version's entries go together: since must cover all of them
		for cut < len(l.entries) && l.entries[cut].version == l.entries[cut-1].version {
			cut++
		}
		l.since = l.entries[cut-1].version
		l.entries = append(l.entries[:0], l.entries[cut:]...)
	}
	l.entries = append(l.entries, opinionChange{version, author})
}

// OpinionsChangedSince calls fn with each author whose Opinions may have
// changed after version since, until fn returns false. It reports false,
// calling fn for none, when the log no longer reaches back to since.
func (v View) OpinionsChangedSince(since uint64, fn func(author NodeID) bool) bool {
	l := &v.h.opinions
	if since < l.since {
		return false
	}
	i, _ := slices.BinarySearchFunc(l.entries, since+1, func(c opinionChange, v uint64) int {
		switch {
		case c.version < v:
			return -1
		case c.version > v:
			return 1
		}
		return 0
	})
	for _, c := range l.entries[i:] {
		if !fn(c.author) {
			break
		}
	}
	return true
}

// noteAccountSpeakers notes every author of a 32009 statement about X
// account n, whose claimants changed.
func (h *Heap) noteAccountSpeakers(n NodeID) {
	for _, ei := range h.nodes[n].in {
		if e := h.edges.at(ei); e.kind == kindCodeTrust {
			h.opinions.note(e.author)
		}
	}
}
