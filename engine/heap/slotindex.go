package heap

// slotIndex finds the edge of a slot whose author has more than slotScanMax
// edges. It is an open-addressed table of edge numbers plus one (0 is a
// free cell) that compares a key with the edge a cell names, so a slot costs
// about 8 bytes, where a Go map keyed by the slot held about 30. Slots are
// never removed (a deleted winner keeps its edge), so the table only grows.
// Having no pointers, it is saved in the heap's snapshot and read back where
// it lies: rebuilding the map it replaces was half of a load at 300,000.
type slotIndex struct {
	cells []uint32
	n     int
}

// slotIndexMinCells is the size of a table's first allocation.
const slotIndexMinCells = 1 << 10

func hashSlot(k slotKey) uint64 {
	h := uint64(k.author)<<32 | uint64(k.subject)
	h ^= (uint64(k.context)<<32 | uint64(k.scope)) * 0x9e3779b97f4a7c15
	h ^= uint64(k.kind)
	// murmur3's finalizer: every bit of the key moves the table's cell
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func slotOf(e *edge) slotKey {
	return slotKey{author: e.author, subject: e.subject, context: e.context, scope: e.scope, kind: e.kind}
}

// find returns the edge of slot k.
func (x *slotIndex) find(edges *edgeStore, k slotKey) (uint32, bool) {
	if len(x.cells) == 0 {
		return 0, false
	}
	mask := uint64(len(x.cells) - 1)
	for i := hashSlot(k) & mask; ; i = (i + 1) & mask {
		c := x.cells[i]
		if c == 0 {
			return 0, false
		}
		if slotOf(edges.at(c-1)) == k {
			return c - 1, true
		}
	}
}

// add records edge ei, whose slot the table does not hold.
func (x *slotIndex) add(edges *edgeStore, ei uint32) {
	if 2*(x.n+1) > len(x.cells) {
		x.grow(edges)
	}
	x.put(slotOf(edges.at(ei)), ei)
	x.n++
}

func (x *slotIndex) put(k slotKey, ei uint32) {
	mask := uint64(len(x.cells) - 1)
	i := hashSlot(k) & mask
	for x.cells[i] != 0 {
		i = (i + 1) & mask
	}
	x.cells[i] = ei + 1
}

// grow doubles the table (at half full, probes stay short).
func (x *slotIndex) grow(edges *edgeStore) {
	old := x.cells
	x.cells = make([]uint32, max(2*len(old), slotIndexMinCells))
	for _, c := range old {
		if c != 0 {
			x.put(slotOf(edges.at(c-1)), c-1)
		}
	}
}
