package trustsync

import (
	"encoding/binary"
	"math/bits"
)

// handedIDs remembers which event ids a pass has handed to the sink, in
// about 10 bits an id: a chain of Bloom filters, each twice the size of the
// one before, so that it grows with the pass. A pass of 300,000 people hands
// over about 3 million events; an exact set of them took 65 bytes an id,
// 200 MiB of a process meant to stay under 1 GiB (issue 26).
//
// It answers "new" for certain and "maybe handed" with about 1 % false
// positives. The pass counts only new ids toward its caps and hands the
// maybe-handed ones over too (the sink drops true duplicates), so a false
// positive costs a cap's accuracy by one event, never an event.
type handedIDs struct {
	filters []bloom
}

// bloom is one filter of 2^len bits holding up to capacity ids.
type bloom struct {
	words    []uint64
	mask     uint64 // number of bits - 1
	capacity int
	held     int
}

const (
	handedFirst  = 1 << 16 // ids in the first filter
	handedBits   = 10      // bits per id: about 1 % false positives with 7 probes
	handedProbes = 7
)

func newBloom(capacity int) bloom {
	n := uint64(1) << bits.Len64(uint64(capacity*handedBits-1)) // a power of two
	return bloom{words: make([]uint64, n/64), mask: n - 1, capacity: capacity}
}

// probes are the bit positions of id: double hashing over the id's own
// bytes (event ids are SHA-256 digests).
func (b *bloom) probe(id *[32]byte, i uint64) (word int, bit uint64) {
	h1 := binary.LittleEndian.Uint64(id[0:8])
	h2 := binary.LittleEndian.Uint64(id[8:16]) | 1
	p := (h1 + i*h2) & b.mask
	return int(p / 64), 1 << (p % 64)
}

func (b *bloom) has(id *[32]byte) bool {
	for i := range uint64(handedProbes) {
		if w, bit := b.probe(id, i); b.words[w]&bit == 0 {
			return false
		}
	}
	return true
}

func (b *bloom) add(id *[32]byte) {
	for i := range uint64(handedProbes) {
		w, bit := b.probe(id, i)
		b.words[w] |= bit
	}
	b.held++
}

// add records id and reports whether it is certainly new to the pass.
func (s *handedIDs) add(id *[32]byte) (isNew bool) {
	for i := range s.filters {
		if s.filters[i].has(id) {
			return false
		}
	}
	if len(s.filters) == 0 || s.filters[len(s.filters)-1].held >= s.filters[len(s.filters)-1].capacity {
		c := handedFirst
		if len(s.filters) > 0 {
			c = 2 * s.filters[len(s.filters)-1].capacity
		}
		s.filters = append(s.filters, newBloom(c))
	}
	s.filters[len(s.filters)-1].add(id)
	return true
}
