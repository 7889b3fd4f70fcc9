package ingest

import (
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
)

// seenBits is the size of the held-ids filter: 2^24 bits (2 MiB). With four
// probes it answers "maybe held" wrongly for about 0.2% of new ids at one
// million stored events; a wrong "maybe" only costs one indexed read.
const seenBits = 1 << 24

// seenFilter is a Bloom filter of the ids the store holds, so that the
// duplicate check before signature work costs a database read only for ids
// that may be held (SPEC §3). Event ids are SHA-256 digests, so their bytes
// serve as the hash. Safe for concurrent use without locks.
type seenFilter struct {
	words [seenBits / 64]atomic.Uint64
}

// probes derives the four bit positions of an id; ok is false for an id
// that is not 64 hex characters (such an event is refused later anyway).
func probes(id string) (p [4]uint32, ok bool) {
	if len(id) != 64 {
		return p, false
	}
	var b [16]byte
	if _, err := hex.Decode(b[:], []byte(id[:32])); err != nil {
		return p, false
	}
	for i := range p {
		p[i] = binary.LittleEndian.Uint32(b[i*4:]) % seenBits
	}
	return p, true
}

func (f *seenFilter) add(id string) {
	p, ok := probes(id)
	if !ok {
		return
	}
	for _, bit := range p {
		w := &f.words[bit/64]
		mask := uint64(1) << (bit % 64)
		for {
			old := w.Load()
			if old&mask != 0 || w.CompareAndSwap(old, old|mask) {
				break
			}
		}
	}
}

// mayHold is false only for ids certainly not added.
func (f *seenFilter) mayHold(id string) bool {
	p, ok := probes(id)
	if !ok {
		return true
	}
	for _, bit := range p {
		if f.words[bit/64].Load()&(uint64(1)<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
