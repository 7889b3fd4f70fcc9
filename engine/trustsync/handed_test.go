package trustsync

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

// An id handed once is never new again, a new one is new nearly always (a
// false "maybe handed" costs a cap's count, not an event), and the memory
// stays near 10 bits an id as the set grows past its first filters.
func TestHandedIDs(t *testing.T) {
	var s handedIDs
	id := func(i int) *[32]byte {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		d := sha256.Sum256(b[:])
		return &d
	}
	const n = 1_000_000
	for i := range n {
		if !s.add(id(i)) && i < handedFirst/2 {
			t.Fatalf("id %d is called handed in a half-empty first filter", i)
		}
	}
	for i := 0; i < n; i += 997 {
		if s.add(id(i)) {
			t.Fatalf("id %d handed before is called new", i)
		}
	}
	falsePositives := 0
	for i := n; i < 2*n; i++ {
		if !s.add(id(i)) {
			falsePositives++
		}
	}
	if rate := float64(falsePositives) / n; rate > 0.03 {
		t.Fatalf("%.2f %% of new ids were called handed", 100*rate)
	}
	bytes := 0
	for _, f := range s.filters {
		bytes += 8 * len(f.words)
	}
	if perID := float64(8*bytes) / (2 * n); perID > 4*handedBits {
		t.Fatalf("%.1f bits an id", perID)
	}
	t.Logf("%d filters, %d KiB for %d ids, %.3f %% false positives", len(s.filters), bytes>>10, 2*n, 100*float64(falsePositives)/n)
}
