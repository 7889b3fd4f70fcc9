// Package heap is the in-memory trust graph (SPEC §4): one edge per held
// 32009/32014 slot winner, nodes for pubkeys and typed subjects, the X
// account bindings of §6.3, and the guardrails that bound its memory.
//
// The database is the source of truth; the heap is a cache rebuilt at
// start-up (Build) and kept current by the ingest pipeline (Apply). Readers
// (frontier, resolver) work inside View, under a read lock.
package heap

import (
	"bytes"
	"encoding/hex"
	"strings"
	"sync"
	"sync/atomic"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// NodeID names a node for the heap's lifetime: nodes are never removed, so an
// id held by a frontier result stays valid while the heap grows.
type NodeID uint32

// NoNode is the absent node.
const NoNode = NodeID(^uint32(0))

// Node keys: one type byte, then 32 raw bytes for pubkeys and event ids (so
// byte order equals lowercase-hex order) or the typed subject text.
const (
	tagPubkey = 'p'
	tagEvent  = 'e'
	tagTyped  = 'i'
)

const (
	kindCodeTrust  uint8 = 1
	kindCodeRating uint8 = 2
)

type node struct {
	key string
	out []uint32 // edges authored by this node
	in  []uint32 // edges about this node
}

// edge is one held slot winner. Slot identity (author, subject, context,
// scope, kind) equals the NIP-32009 `d` material, which validation recomputed.
type edge struct {
	createdAt   int64
	activeFrom  int64
	activeUntil int64
	id          [32]byte
	author      NodeID
	subject     NodeID
	context     uint32 // interned context string, 0 = global
	scope       uint32 // interned canonical scope string, 0 = empty
	extra       uint32 // index into Heap.extras, 0 = none
	kind        uint8
	deleted     bool
	// expires: the statement has a `y`; activeUntil alone cannot say so,
	// since `["y","0"]` is a real (expired) end.
	expires bool
	value   int32 // 32009: -1/0/1; 32014: the score in millionths (validation.ScoreMicros)
	// pubkeySubject caches "subject is a pubkey node" so Hops need not
	// touch the subject's node for most edges.
	pubkeySubject bool
}

// edgeExtra holds the rare, variable-size parts of a statement, kept out of
// the edge so the common edge stays fixed-size.
type edgeExtra struct {
	labels  []validation.Label
	content string
	hints   []string // npub hints (hex) of a binding-shaped statement (see bindingShaped)
}

type slotKey struct {
	author, subject NodeID
	context, scope  uint32
	kind            uint8
}

// Heap is the trust graph. All methods are safe for concurrent use.
type Heap struct {
	mu sync.RWMutex
	// writers counts the writers waiting for mu (lock), so that a long
	// reader can let them in (View.Yield)
	writers atomic.Int32

	nodeLimit, edgeLimit int
	limitReason          string
	refusals             uint64 // statements or nodes refused at a guardrail, ever (Refill)
	version              uint64

	nodes   []node
	nodeIdx map[string]NodeID
	edges   edgeStore
	// slots indexes the slots of authors with more than slotScanMax edges;
	// smaller authors' slots are found by scanning their out list, which is
	// faster and saves the map entry for most edges.
	slots  slotIndex
	extras []edgeExtra
	strs   []string
	strIdx map[string]uint32

	ids      identities
	opinions opinionLog
	mapped   int64 // bytes of the snapshot file this heap lies in (MappedBytes)

	refillMu sync.Mutex // one Refill at a time
	// removed holds the ids Remove took out while a Refill runs (nil
	// otherwise): the refill may have read them before they went.
	removed map[string]struct{}
}

// lock takes the write lock, counted in writers while it waits.
func (h *Heap) lock() {
	h.writers.Add(1)
	h.mu.Lock()
	h.writers.Add(-1)
}

// New returns an empty heap with the node and edge guardrails of limits
// (non-positive values mean the SPEC defaults).
func New(limits settings.Limits) *Heap {
	h := &Heap{
		nodeIdx: make(map[string]NodeID),
		extras:  make([]edgeExtra, 1), // index 0 = none
		strs:    []string{""},
		strIdx:  map[string]uint32{"": 0},
		ids:     newIdentities(),
	}
	h.nodeLimit, h.edgeLimit = guardrails(limits)
	return h
}

// MappedBytes is the size of the snapshot file a loaded heap lies in, mapped
// for the life of the process: its pages count in the process's resident
// memory beside the Go heap's. It is 0 for a heap built from the store, and
// where the snapshot is read into the Go heap (not unix).
func (h *Heap) MappedBytes() int64 { return h.mapped }

// SetLimits replaces the node and edge guardrails of a running heap. A heap
// already past a lowered limit keeps what it holds but takes nothing new.
// A raised limit keeps the limit reason: what was refused stays missing until
// Refill takes it in from the store.
func (h *Heap) SetLimits(limits settings.Limits) {
	h.lock()
	defer h.mu.Unlock()
	h.nodeLimit, h.edgeLimit = guardrails(limits)
	switch {
	case len(h.nodes) > h.nodeLimit:
		h.refuse(status.ReasonHeapNodeLimit)
	case h.edges.n > h.edgeLimit:
		h.refuse(status.ReasonHeapEdgeLimit)
	}
}

// refuse records that a guardrail kept something out (or the heap is past
// one): reason is what status and answers say.
func (h *Heap) refuse(reason string) {
	h.limitReason = reason
	h.refusals++
}

// guardrails are the node and edge limits of limits, non-positive values
// taking the SPEC defaults.
func guardrails(limits settings.Limits) (nodes, edges int) {
	def := settings.DefaultLimits()
	nodes, edges = limits.HeapNodeLimit, limits.HeapEdgeLimit
	if nodes <= 0 {
		nodes = def.HeapNodeLimit
	}
	if edges <= 0 {
		edges = def.HeapEdgeLimit
	}
	return nodes, edges
}

// Change summarises one Apply.
type Change struct {
	Applied int // statements and claims that changed the heap
	// HopsChanged is set when a positive hop may have appeared or vanished:
	// the frontier should be recomputed.
	HopsChanged bool
}

// Apply adds committed slot winners. An input older than the held winner of
// its slot (or equal to it) is ignored, so a replaced winner is never revived.
func (h *Heap) Apply(stmts []*validation.Statement, claims []*validation.Claims) Change {
	h.lock()
	defer h.mu.Unlock()
	return h.applyLocked(stmts, claims, nil)
}

// applyLocked is Apply under h.mu, leaving out the statements whose ids are
// in skip.
func (h *Heap) applyLocked(stmts []*validation.Statement, claims []*validation.Claims, skip map[string]struct{}) Change {
	var c Change
	for _, s := range stmts {
		if _, out := skip[s.ID]; out {
			continue
		}
		applied, hops := h.applyStatement(s)
		h.note(&c, applied, hops)
	}
	for _, cl := range claims {
		applied, hops := h.applyClaims(cl)
		h.note(&c, applied, hops)
	}
	return c
}

// note counts one input's outcome into c: an applied change moves the graph
// version and stamps the opinion log's pending authors with it.
func (h *Heap) note(c *Change, applied, hops bool) {
	if applied {
		c.Applied++
		h.version++
	}
	h.opinions.commit(applied, h.version)
	c.HopsChanged = c.HopsChanged || hops
}

// Version is the graphVersion: it increases on every applied change.
func (h *Heap) Version() uint64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.version
}

// Stats is the heap's size, limits and limit reason for the status snapshot.
func (h *Heap) Stats() status.Heap {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return status.Heap{
		Nodes: len(h.nodes), Edges: h.edges.n, GraphVersion: h.version,
		NodeLimit: h.nodeLimit, EdgeLimit: h.edgeLimit, LimitReason: h.limitReason,
	}
}

// edgeValue is the kind code and value an edge keeps for s: a trust value
// (-1, 0, 1) or a rating's score in millionths; ok is false for a value the
// heap cannot keep.
func edgeValue(s *validation.Statement) (kind uint8, value int32, ok bool) {
	switch s.Kind {
	case validation.KindTrust:
		switch s.Value {
		case "1":
			return kindCodeTrust, 1, true
		case "-1":
			return kindCodeTrust, -1, true
		case "0", "":
			return kindCodeTrust, 0, true
		}
	case validation.KindRating:
		if s.Value == "" {
			return kindCodeRating, 0, true
		}
		if micros, ok := validation.ScoreMicros(s.Value); ok {
			return kindCodeRating, micros, true
		}
	}
	return 0, 0, false
}

func (h *Heap) applyStatement(s *validation.Statement) (applied, hops bool) {
	kind, value, ok := edgeValue(s)
	if !ok {
		return false, false
	}
	var id [32]byte
	if len(s.ID) != 64 {
		return false, false
	}
	if _, err := hex.Decode(id[:], []byte(s.ID)); err != nil {
		return false, false
	}
	// Keys are built in stack buffers: map lookups with string(bytes) do
	// not allocate; only new nodes keep a copy.
	var authorBuf, subjectBuf [80]byte
	authorKey, ok := appendKey(authorBuf[:0], 'p', s.Author)
	if !ok {
		return false, false
	}
	subjectKey, ok := appendKey(subjectBuf[:0], s.SubjectTag, s.Subject)
	if !ok {
		return false, false
	}
	ctx := h.intern(s.Context)
	scope := h.intern(validation.CanonicalScope(s.Scopes))

	author, authorHeld := h.nodeIdx[string(authorKey)]
	subject, subjectHeld := h.nodeIdx[string(subjectKey)]
	if authorHeld && subjectHeld {
		key := slotKey{author: author, subject: subject, context: ctx, scope: scope, kind: kind}
		if ei, held := h.findSlot(key); held {
			return h.replace(ei, s, id, value)
		}
	}

	// A new slot needs an edge and perhaps nodes: respect the guardrails.
	if h.edges.n >= h.edgeLimit {
		h.refuse(status.ReasonHeapEdgeLimit)
		return false, false
	}
	missing := 0
	if !authorHeld {
		missing++
	}
	if !subjectHeld && string(subjectKey) != string(authorKey) {
		missing++
	}
	if len(h.nodes)+missing > h.nodeLimit {
		h.refuse(status.ReasonHeapNodeLimit)
		return false, false
	}
	if !authorHeld {
		author = h.addNode(string(authorKey))
	}
	if !subjectHeld {
		subject = h.addNode(string(subjectKey))
	}

	ei := h.edges.add(edge{author: author, subject: subject, context: ctx, scope: scope, kind: kind,
		pubkeySubject: subjectKey[0] == tagPubkey})
	h.nodes[author].out = append(h.nodes[author].out, ei)
	h.nodes[subject].in = append(h.nodes[subject].in, ei)
	h.indexSlot(author, ei)
	hops = h.setWinner(ei, s, id, value)
	return true, hops
}

// slotScanMax is the out-degree up to which slots are found by scanning.
const slotScanMax = 16

func (h *Heap) findSlot(k slotKey) (uint32, bool) {
	out := h.nodes[k.author].out
	if len(out) > slotScanMax {
		return h.slots.find(&h.edges, k)
	}
	for _, ei := range out {
		if e := h.edges.at(ei); e.subject == k.subject && e.context == k.context && e.scope == k.scope && e.kind == k.kind {
			return ei, true
		}
	}
	return 0, false
}

// indexSlot records new edge ei (already in its author's out list).
func (h *Heap) indexSlot(author NodeID, ei uint32) {
	out := h.nodes[author].out
	switch {
	case len(out) == slotScanMax+1: // the author just outgrew scanning: index all its slots
		for _, x := range out {
			h.slots.add(&h.edges, x)
		}
	case len(out) > slotScanMax+1:
		h.slots.add(&h.edges, ei)
	}
}

// replace installs s into a held slot when it is the newer winner.
func (h *Heap) replace(ei uint32, s *validation.Statement, id [32]byte, value int32) (applied, hops bool) {
	e := h.edges.at(ei)
	if s.CreatedAt < e.createdAt {
		return false, false
	}
	if s.CreatedAt == e.createdAt && bytes.Compare(id[:], e.id[:]) >= 0 {
		return false, false // ties go to the lower id; same id is a duplicate
	}
	wasHop := h.mayDecideHop(e)
	hops = h.setWinner(ei, s, id, value)
	return true, hops || wasHop
}

// setWinner writes the statement's fields into edge ei and updates the hint
// index. It reports whether the edge is now a potential hop or its hints
// changed a binding.
func (h *Heap) setWinner(ei uint32, s *validation.Statement, id [32]byte, value int32) bool {
	e := h.edges.at(ei)
	e.createdAt, e.activeFrom, e.activeUntil, e.expires = s.CreatedAt, s.ActiveFrom, s.ActiveUntil, s.Expires
	e.id, e.value, e.deleted = id, value, s.Deleted()

	var oldHints []string
	if e.extra != 0 {
		oldHints = h.extras[e.extra].hints
	}
	var hints []string
	if bindingShaped(s) {
		hints = s.BoundHints
	}
	if len(s.Labels) > 0 || s.Content != "" || len(hints) > 0 {
		if e.extra == 0 {
			e.extra = uint32(len(h.extras))
			h.extras = append(h.extras, edgeExtra{})
		}
		h.extras[e.extra] = edgeExtra{labels: s.Labels, content: s.Content, hints: hints}
	} else if e.extra != 0 {
		h.extras[e.extra] = edgeExtra{}
	}
	bindingChanged := h.updateHints(e.subject, ei, oldHints, hints)
	if e.kind == kindCodeTrust {
		h.opinions.note(e.author)
	}
	if bindingChanged {
		h.noteAccountSpeakers(e.subject)
	}
	return h.mayDecideHop(e) || bindingChanged
}

// mayDecideHop reports whether edge e can make or unmake a hop: a positive
// 32009 about a hop subject, or a scoped one of any value, which outranks
// its author's unscoped statement about the same subject (View.Hops).
func (h *Heap) mayDecideHop(e *edge) bool {
	return e.kind == kindCodeTrust && (e.scope != 0 || !e.deleted && e.value == 1) && h.hopSubject(e.subject)
}

// hopSubject reports whether a positive statement about n can be a hop:
// n is a pubkey or an X account (bound now or perhaps later).
func (h *Heap) hopSubject(n NodeID) bool {
	k := h.nodes[n].key
	return k[0] == tagPubkey || strings.HasPrefix(k[1:], xAccountPrefix)
}

// edgeStore holds edges in fixed-size chunks: growth never copies the
// edges already held and leaves no doubled capacity behind.
type edgeStore struct {
	chunks [][]edge
	n      int
}

const edgeChunkBits = 14

func (s *edgeStore) at(i uint32) *edge {
	return &s.chunks[i>>edgeChunkBits][i&(1<<edgeChunkBits-1)]
}

func (s *edgeStore) add(e edge) uint32 {
	if s.n>>edgeChunkBits == len(s.chunks) {
		s.chunks = append(s.chunks, make([]edge, 0, 1<<edgeChunkBits))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, e)
	s.n++
	return uint32(s.n - 1)
}

func (h *Heap) addNode(key string) NodeID {
	if n, ok := h.nodeIdx[key]; ok {
		return n
	}
	n := NodeID(len(h.nodes))
	h.nodes = append(h.nodes, node{key: key})
	h.nodeIdx[key] = n
	return n
}

func (h *Heap) intern(s string) uint32 {
	if i, ok := h.strIdx[s]; ok {
		return i
	}
	i := uint32(len(h.strs))
	h.strs = append(h.strs, s)
	h.strIdx[s] = i
	return i
}

// pubkeyKey is the node key of a 64-char lowercase hex pubkey.
func pubkeyKey(hexKey string) (string, bool) {
	k, ok := appendKey(nil, 'p', hexKey)
	return string(k), ok
}

// subjectKey is the node key of a subject as tagged in a statement.
func subjectKey(tag byte, subject string) (string, bool) {
	k, ok := appendKey(nil, tag, subject)
	return string(k), ok
}

// appendKey appends the node key of a subject tagged 'p' (hex pubkey), 'e'
// (hex event id) or 'i' (typed subject) to dst.
func appendKey(dst []byte, tag byte, value string) ([]byte, bool) {
	switch tag {
	case 'i':
		if value == "" {
			return nil, false
		}
		return append(append(dst, tagTyped), value...), true
	case 'p':
		dst = append(dst, tagPubkey)
	case 'e':
		dst = append(dst, tagEvent)
	default:
		return nil, false
	}
	var raw [32]byte
	if !validation.DecodeLowerHex(raw[:], value) {
		return nil, false
	}
	return append(dst, raw[:]...), true
}

// keyText renders a node key as its public form: hex for pubkeys and event
// ids, the typed subject otherwise.
func keyText(key string) string {
	if key[0] == tagTyped {
		return key[1:]
	}
	return hex.EncodeToString([]byte(key[1:]))
}
