package heap

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"math"
	"os"
	"unsafe"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// A snapshot is the heap written to a file, so that a start can load it
// instead of parsing every stored event again (SPEC §4): at a million
// events the parse is most of a start. The database stays the truth: the
// file names the database state it was written from (its key, given by the
// caller), and a snapshot whose key is not the database's now is stale and
// ignored, as is one whose checksum (CRC-32C over the whole file) fails.
//
// Layout: the magic, the format, the key, then the heap's parts (strings,
// nodes, edges, extras, identity facts), then the checksum; numbers
// little-endian, except the large arrays (node keys' and lists' lengths,
// the lists, the edges), which are this machine's memory as it is, each at
// an offset that is a multiple of 8: only the program that wrote a
// snapshot reads it back (the key names the program). A load maps the file
// (copy-on-write where the system can, else reads it whole) and the heap
// uses those arrays and its strings where they lie in it: nothing is
// copied or decoded, and a start touches no fresh memory for them (on the
// virtual machines this was measured on, a fresh page costs about 10 µs: a
// quarter of a gigabyte was most of a start). Indexes (node and string
// lookups, the slot index, the identity reverse index) are rebuilt on load.

var snapshotMagic = []byte("dtp-heap")

// snapshotFormat changes with the layout or with what the heap keeps.
const snapshotFormat = 4

// ErrStaleSnapshot is a snapshot of another database state than the key
// asked for.
var ErrStaleSnapshot = errors.New("heap snapshot is stale")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SaveSnapshot writes the heap to path (through a temporary file renamed
// over it), with key naming the database state it holds, and the caller's
// attachment (other state of that database, kept and checked with it). It
// is not synced: a snapshot torn by a crash fails its checksum and is
// ignored.
func (h *Heap) SaveSnapshot(path string, key, attachment []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("heap snapshot: %w", err)
	}
	e := &encoder{w: bufio.NewWriterSize(f, 1<<20), crc: crc32.New(castagnoli)}
	h.mu.RLock()
	h.encode(e, key)
	h.mu.RUnlock()
	e.u32(uint32(len(attachment)))
	e.raw(attachment)
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], e.crc.Sum32())
	if e.err == nil {
		_, e.err = e.w.Write(sum[:])
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if err := errors.Join(e.err, f.Close()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("heap snapshot: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("heap snapshot: %w", err)
	}
	return nil
}

// LoadSnapshot reads the heap at path, with the guardrails of limits, and
// the attachment saved with it, when it was written under key and is whole.
// Otherwise it returns an error: os.ErrNotExist, ErrStaleSnapshot, or what
// is wrong with the file.
func LoadSnapshot(path string, key []byte, limits settings.Limits) (h *Heap, attachment []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() < int64(len(snapshotMagic))+4 || fi.Size() > math.MaxInt-1 {
		return nil, nil, errors.New("heap snapshot: too short")
	}
	data, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return nil, nil, fmt.Errorf("heap snapshot: %w", err)
	}
	kept := false
	defer func() {
		// a snapshot not loaded is let go at once: a stale one's pages
		// stayed resident through the rebuild that replaced it (368 MiB of
		// a 1.2 GiB peak at 300,000 people)
		if !kept {
			unmapFile(data)
		}
	}()
	if uintptr(unsafe.Pointer(unsafe.SliceData(data)))%8 != 0 {
		return nil, nil, errors.New("heap snapshot: mapped at an offset not a multiple of 8")
	}
	body, sum := data[:len(data)-4], data[len(data)-4:]
	d := &decoder{data: body}
	// the header first: a stale snapshot is known without reading the rest
	if err := d.header(key); err != nil {
		return nil, nil, err
	}
	// the checksum is read beside the decoding, which bounds everything it
	// reads by the file: a damaged file decodes to a heap that is dropped
	summed := make(chan bool, 1)
	go func() { summed <- binary.LittleEndian.Uint32(sum) == crc32.Checksum(body, castagnoli) }()
	h, attachment, err = decodeSnapshot(d, limits)
	if !<-summed {
		return nil, nil, errors.New("heap snapshot: checksum mismatch (damaged)")
	}
	if err != nil {
		return nil, nil, err
	}
	kept = true
	if mapsFiles {
		h.mapped = int64(len(data))
	}
	return h, attachment, nil
}

// header reads a snapshot's magic, format and key, and says whether the
// snapshot is of this program's format and of the state key names.
func (d *decoder) header(key []byte) error {
	if magic := d.next(len(snapshotMagic)); d.err == nil && !bytes.Equal(magic, snapshotMagic) {
		return errors.New("heap snapshot: not a heap snapshot")
	}
	if format := d.u32(); d.err == nil && format != snapshotFormat {
		return fmt.Errorf("%w: format %d, this program writes %d", ErrStaleSnapshot, format, snapshotFormat)
	}
	if held := d.str(); d.err == nil && held != string(key) {
		return ErrStaleSnapshot
	}
	if d.err != nil {
		return fmt.Errorf("heap snapshot: %w", d.err)
	}
	return nil
}

// decodeSnapshot decodes the rest of a snapshot's body (the file less its
// checksum) after its header.
func decodeSnapshot(d *decoder, limits settings.Limits) (h *Heap, attachment []byte, err error) {
	h = New(limits)
	h.decode(d)
	if n := d.count(1); n > 0 {
		attachment = bytes.Clone(d.next(n))
	}
	if d.err == nil && d.left() != 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, nil, fmt.Errorf("heap snapshot: %w", d.err)
	}
	return h, attachment, nil
}

func (h *Heap) encode(e *encoder, key []byte) {
	e.raw(snapshotMagic)
	e.u32(snapshotFormat)
	e.str(string(key))
	e.u64(h.version)
	e.str(h.limitReason)
	e.u32(uint32(len(h.strs)))
	for _, s := range h.strs {
		e.str(s)
	}
	h.encodeNodes(e)
	h.encodeEdges(e)
	h.encodeExtras(e)
	h.encodeSlots(e)
	h.encodeIDs(e)
}

func (h *Heap) decode(d *decoder) {
	h.version = d.u64()
	h.limitReason = d.str()
	h.strs = make([]string, d.count(1))
	for i := range h.strs {
		h.strs[i] = d.str()
		h.strIdx[h.strs[i]] = uint32(i)
	}
	if h.decodeNodes(d); d.err != nil {
		return
	}
	// the key index is a map of every node, built beside the rest of the
	// load: 0.15-0.2 s of a 1.1 s load at 300,000 people (its profile)
	indexed := make(chan struct{})
	go func() {
		defer close(indexed)
		h.nodeIdx = make(map[string]NodeID, len(h.nodes))
		for i := range h.nodes {
			h.nodeIdx[h.nodes[i].key] = NodeID(i)
		}
	}()
	defer func() { <-indexed }()
	if h.decodeEdges(d); d.err != nil {
		return
	}
	h.decodeExtras(d)
	if h.checkLists(d); d.err != nil {
		return
	}
	if h.decodeSlots(d); d.err != nil {
		return
	}
	h.decodeIDs(d)
	h.opinions.since = h.version // nothing before the load is logged
}

// encodeNodes writes the nodes as arrays: key lengths, then all keys; the
// lengths of every out list, then of every in list; then all out lists,
// then all in.
func (h *Heap) encodeNodes(e *encoder) {
	e.u32(uint32(len(h.nodes)))
	lengths := make([]uint32, len(h.nodes))
	for _, part := range []func(n *node) int{
		func(n *node) int { return len(n.key) },
		func(n *node) int { return len(n.out) },
		func(n *node) int { return len(n.in) },
	} {
		for i := range h.nodes {
			lengths[i] = uint32(part(&h.nodes[i]))
		}
		e.align()
		e.raw(rawBytes(lengths))
	}
	for i := range h.nodes {
		e.raw(unsafe.Slice(unsafe.StringData(h.nodes[i].key), len(h.nodes[i].key)))
	}
	e.align()
	for i := range h.nodes {
		e.raw(rawBytes(h.nodes[i].out))
	}
	for i := range h.nodes {
		e.raw(rawBytes(h.nodes[i].in))
	}
}

// decodeNodes reads what encodeNodes wrote: the keys and the lists stay
// where they lie in the file, the nodes slice them.
func (h *Heap) decodeNodes(d *decoder) {
	nodes := d.count(12)
	h.nodes = make([]node, nodes)
	var lengths [3][]uint32 // of keys, out lists, in lists
	var total [3]int64
	for i := range lengths {
		lengths[i] = inPlace[uint32](d, nodes)
		for _, n := range lengths[i] {
			total[i] += int64(n)
		}
	}
	if total[0] > int64(d.left()) || 4*(total[1]+total[2]) > int64(d.left()) {
		d.fail("nodes larger than the file")
		return
	}
	keys := d.next(int(total[0]))
	lists := inPlace[uint32](d, int(total[1]+total[2]))
	if d.err != nil {
		return
	}
	keyText := unsafe.String(unsafe.SliceData(keys), len(keys)) // the file is never written
	var at [3]int
	at[2] = int(total[1])
	for i := range h.nodes {
		n := &h.nodes[i]
		k, o, in := int(lengths[0][i]), int(lengths[1][i]), int(lengths[2][i])
		n.key = keyText[at[0] : at[0]+k]
		// capped slices: an append by Apply moves a list out of the file
		n.out = lists[at[1] : at[1]+o : at[1]+o]
		n.in = lists[at[2] : at[2]+in : at[2]+in]
		at[0], at[1], at[2] = at[0]+k, at[1]+o, at[2]+in
		if o == 0 {
			n.out = nil
		}
		if in == 0 {
			n.in = nil
		}
		if k == 0 {
			d.fail("a node without a key")
			return
		}
	}
}

// encodeEdges writes the edges as they lie in memory: only this program
// reads them back (the key names it), and edges hold no pointers.
func (h *Heap) encodeEdges(e *encoder) {
	e.u32(uint32(h.edges.n))
	e.u32(uint32(unsafe.Sizeof(edge{})))
	e.align()
	for _, chunk := range h.edges.chunks {
		e.raw(rawBytes(chunk))
	}
}

// decodeEdges reads what encodeEdges wrote, and fails on an edge that names
// a node or string the snapshot does not hold.
func (h *Heap) decodeEdges(d *decoder) {
	edges := d.count(int64(unsafe.Sizeof(edge{})))
	if size := d.u32(); d.err == nil && size != uint32(unsafe.Sizeof(edge{})) {
		d.fail("edges of another size")
		return
	}
	all := inPlace[edge](d, edges)
	if d.err != nil {
		return
	}
	for c := 0; c < edges; c += 1 << edgeChunkBits {
		// capped: edgeStore.add appends past the last one into memory of its own
		end := min(c+1<<edgeChunkBits, edges)
		h.edges.chunks = append(h.edges.chunks, all[c:end:end])
	}
	h.edges.n = edges
	for _, chunk := range h.edges.chunks {
		for i := range chunk {
			if x := &chunk[i]; int(x.author) >= len(h.nodes) || int(x.subject) >= len(h.nodes) || int(x.context) >= len(h.strs) || int(x.scope) >= len(h.strs) {
				d.fail("an edge names a node or string that is not there")
				return
			}
		}
	}
}

func (h *Heap) encodeExtras(e *encoder) {
	e.u32(uint32(len(h.extras)))
	for _, x := range h.extras {
		e.u32(uint32(len(x.labels)))
		for _, l := range x.labels {
			e.str(l.Name)
			e.str(l.Description)
		}
		e.str(x.content)
		e.strs(x.hints)
	}
}

func (h *Heap) decodeExtras(d *decoder) {
	h.extras = make([]edgeExtra, d.count(9))
	for i := range h.extras {
		x := &h.extras[i]
		for range d.count(2) {
			x.labels = append(x.labels, validation.Label{Name: d.str(), Description: d.str()})
		}
		x.content = d.str()
		x.hints = d.strs()
	}
}

// checkLists fails on a node that lists an edge the snapshot does not hold.
func (h *Heap) checkLists(d *decoder) {
	for _, n := range h.nodes {
		for _, list := range [][]uint32{n.out, n.in} {
			for _, ei := range list {
				if int(ei) >= h.edges.n {
					d.fail("a node lists an edge that is not there")
					return
				}
			}
		}
	}
}

// encodeSlots writes the slot table as it lies in memory: its cells place
// slots by this program's hash, and only this program reads them back.
func (h *Heap) encodeSlots(e *encoder) {
	e.u32(uint32(h.slots.n))
	e.u32(uint32(len(h.slots.cells)))
	e.align()
	e.raw(rawBytes(h.slots.cells))
}

// decodeSlots reads what encodeSlots wrote, where it lies in the file
// (rebuilding it was a third of a load at 300,000 people), and fails on a
// table of another shape or a cell naming an edge the snapshot does not hold.
func (h *Heap) decodeSlots(d *decoder) {
	n := d.count(4)
	size := int(d.u32())
	if d.err != nil {
		return
	}
	if size != 0 && (size&(size-1) != 0 || size < slotIndexMinCells || size < 2*n) {
		d.fail("a slot table of another shape")
		return
	}
	cells := inPlace[uint32](d, size)
	if d.err != nil {
		return
	}
	held := 0
	for _, c := range cells {
		if c != 0 {
			if int(c) > h.edges.n {
				d.fail("a slot names an edge that is not there")
				return
			}
			held++
		}
	}
	if held != n {
		d.fail("a slot table holding another count")
		return
	}
	h.slots = slotIndex{cells: cells, n: n}
}

// encodeIDs writes the identity facts: hint counts, claimants, claims, the
// pairs ever claimed, the pubkeys fetched.
func (h *Heap) encodeIDs(e *encoder) {
	ids := &h.ids
	e.u32(uint32(len(ids.hinted)))
	for n, counts := range ids.hinted {
		e.u32(uint32(n))
		e.u32(uint32(len(counts)))
		for p, c := range counts {
			e.str(p)
			e.u32(uint32(c))
		}
		edges := ids.hintEdges[n]
		e.u32(uint32(len(edges)))
		for _, ei := range edges {
			e.u32(ei)
		}
	}
	e.u32(uint32(len(ids.claimants)))
	for n, cs := range ids.claimants {
		e.u32(uint32(n))
		e.u32(uint32(len(cs)))
		for _, c := range cs {
			e.u32(uint32(c))
		}
	}
	e.u32(uint32(len(ids.claims)))
	for p, c := range ids.claims {
		e.str(p)
		e.u64(uint64(c.createdAt))
		e.str(c.id)
		e.strs(c.twitterIDs)
	}
	e.u32(uint32(len(ids.everClaimed)))
	for p := range ids.everClaimed {
		e.str(p.pubkey)
		e.str(p.twitterID)
	}
	e.u32(uint32(len(ids.fetched)))
	for p := range ids.fetched {
		e.str(p)
	}
}

// decodeIDs reads what encodeIDs wrote, rebuilding the reverse index from
// accounts to the nodes that hint them.
func (h *Heap) decodeIDs(d *decoder) {
	ids := &h.ids
	hinted := d.count(8)
	ids.hinted = make(map[NodeID]map[string]int32, hinted)
	for range hinted {
		n := d.node(len(h.nodes))
		counts := make(map[string]int32)
		for range d.count(5) {
			p := d.str()
			counts[p] = int32(d.u32())
			if ids.accounts[p] == nil {
				ids.accounts[p] = make(map[NodeID]struct{})
			}
			ids.accounts[p][n] = struct{}{}
		}
		ids.hinted[n] = counts
		edges := make([]uint32, d.count(4))
		for i := range edges {
			if edges[i] = d.u32(); int(edges[i]) >= h.edges.n {
				d.fail("a hint's edge that is not there")
			}
		}
		ids.hintEdges[n] = edges
	}
	for range d.count(8) {
		n := d.node(len(h.nodes))
		cs := make([]NodeID, d.count(4))
		for i := range cs {
			cs[i] = d.node(len(h.nodes))
		}
		ids.claimants[n] = cs
	}
	claims := d.count(17)
	ids.claims = make(map[string]claimRecord, claims)
	for range claims {
		p := d.str()
		ids.claims[p] = claimRecord{createdAt: int64(d.u64()), id: d.str(), twitterIDs: d.strs()}
	}
	everClaimed := d.count(2)
	ids.everClaimed = make(map[claimPair]struct{}, everClaimed)
	for range everClaimed {
		ids.everClaimed[claimPair{d.str(), d.str()}] = struct{}{}
	}
	fetched := d.count(1)
	ids.fetched = make(map[string]struct{}, fetched)
	for range fetched {
		ids.fetched[d.str()] = struct{}{}
	}
}

// encoder writes a snapshot, keeping its checksum and its first error.
type encoder struct {
	w   *bufio.Writer
	crc hash.Hash32
	off int64 // bytes written
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		e.crc.Write(b)
		_, e.err = e.w.Write(b)
		e.off += int64(len(b))
	}
}

// align pads with zeros to an offset that is a multiple of 8, where a large
// array starts so that a load can use it in place.
func (e *encoder) align() {
	if pad := (8 - e.off%8) % 8; pad > 0 {
		e.raw(make([]byte, pad))
	}
}

func (e *encoder) u8(v uint8) { e.raw([]byte{v}) }

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.raw(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:], v)
	e.raw(e.buf[:])
}

func (e *encoder) str(s string) {
	e.u32(uint32(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) strs(ss []string) {
	e.u32(uint32(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// decoder reads a snapshot whose checksum held, from the file's memory;
// every count and length is bounded by the bytes left, so a bad one cannot
// allocate much.
type decoder struct {
	data []byte // the file less its checksum
	off  int
	err  error
	zero [8]byte // what next gives after an error: no number is longer
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = errors.New(what)
	}
}

func (d *decoder) left() int { return len(d.data) - d.off }

// next returns the file's next n bytes where they lie (never to be
// written); once something failed, up to 8 zeros.
func (d *decoder) next(n int) []byte {
	if d.err == nil && (n < 0 || n > d.left()) {
		d.fail("cut short")
	}
	if d.err != nil {
		return d.zero[:min(max(n, 0), len(d.zero))]
	}
	b := d.data[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

// aligned skips the padding align wrote and returns the next n bytes.
func (d *decoder) aligned(n int) []byte {
	if pad := (8 - d.off%8) % 8; d.err == nil {
		d.next(pad)
	}
	b := d.next(n)
	if d.err != nil {
		return nil
	}
	return b
}

// inPlace is the next n values of an array written in place (rawBytes),
// where they lie in the file.
func inPlace[T uint32 | edge](d *decoder, n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if d.err == nil && n > d.left()/size {
		d.fail("cut short")
	}
	b := d.aligned(size * n)
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// rawBytes is the memory of a slice of plain values (no pointers), as
// bytes: what the snapshot writes and reads back for large arrays.
func rawBytes[T uint32 | edge](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

func (d *decoder) u8() uint8 { return d.next(1)[0] }

func (d *decoder) u32() uint32 { return binary.LittleEndian.Uint32(d.next(4)) }

func (d *decoder) u64() uint64 { return binary.LittleEndian.Uint64(d.next(8)) }

// count reads a count of records at least minSize bytes each.
func (d *decoder) count(minSize int64) int {
	n := int64(d.u32())
	if n*minSize > int64(d.left()) || n > math.MaxInt32 {
		d.fail("a count larger than the file")
		return 0
	}
	return int(n)
}

// str is the next string, where it lies in the file.
func (d *decoder) str() string {
	b := d.next(d.count(1))
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (d *decoder) strs() []string {
	n := d.count(4)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) node(nodes int) NodeID {
	n := d.u32()
	if int(n) >= nodes {
		d.fail("a node that is not there")
	}
	return NodeID(n)
}
