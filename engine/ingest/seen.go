package ingest

import (
	"context"
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
	// loaded is set once every id held when the pipeline started is in;
	// until then every id may be held. The pipeline adds what it commits
	// meanwhile itself.
	loaded atomic.Bool
	stop   context.CancelFunc
	done   chan struct{}
}

// loadSeen returns the filter of the ids st holds: from saved, a filter
// Pipeline.SeenFilter gave for the store as it is now, or else read from the
// store in the background: reading a million ids took a second of a start
// (issue 26), and until the filter is whole the duplicate check asks the
// database.
func loadSeen(st Store, saved []byte) *seenFilter {
	f := &seenFilter{done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	f.stop = cancel
	if len(saved) == len(f.words)*8 {
		for i := range f.words {
			f.words[i].Store(binary.LittleEndian.Uint64(saved[8*i:]))
		}
		f.loaded.Store(true)
		close(f.done)
		return f
	}
	go func() {
		defer close(f.done)
		if st.EachID(ctx, f.add) == nil {
			f.loaded.Store(true)
		}
	}()
	return f
}

// SeenFilter is the held-ids filter as bytes, to give a later pipeline on
// the same store state (Config.SeenFilter); nil while it is still loading.
func (p *Pipeline) SeenFilter() []byte {
	f := p.seen
	if !f.loaded.Load() {
		return nil
	}
	out := make([]byte, 8*len(f.words))
	for i := range f.words {
		binary.LittleEndian.PutUint64(out[8*i:], f.words[i].Load())
	}
	return out
}

// close stops a load still running and waits for it to end.
func (f *seenFilter) close() {
	f.stop()
	<-f.done
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

// mayHold is false only for ids certainly not held.
func (f *seenFilter) mayHold(id string) bool {
	p, ok := probes(id)
	if !ok || !f.loaded.Load() {
		return true
	}
	for _, bit := range p {
		if f.words[bit/64].Load()&(uint64(1)<<(bit%64)) == 0 {
			return false
		}
	}
	return true
}
