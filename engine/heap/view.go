package heap

import (
	"cmp"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"dtp-personal/engine/validation"
)

// View is a read-locked window on the heap; it is valid only inside the
// function given to (*Heap).View and must not be kept.
type View struct {
	h *Heap
	// bound, when set (WithBindings), keeps boundTo's answer per X account
	bound map[NodeID]bound
}

// View runs fn under the heap's read lock. Apply waits until fn returns, so
// keep fn short (one query), or let writers in with View.Yield (a walk).
func (h *Heap) View(fn func(View)) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	fn(View{h: h})
}

// Yield lets the writers waiting for the heap in, when there are any: it
// gives the read lock up and takes it again once they are done, and
// reports whether it did. A long reader calls it between steps (a frontier
// walk holds the heap for 0.4 s at 300,000 people): otherwise each commit
// waits for the reader, and every question waits behind the commit. What
// the reader read before a yield may be older than what it reads after,
// and nodes may have been added.
func (v View) Yield() bool {
	if v.h.writers.Load() == 0 {
		return false
	}
	v.h.mu.RUnlock()
	v.h.mu.RLock()
	return true
}

// Outside runs fn with the read lock given up, and takes it again after:
// a long reader's work on what it has read alone (sorting a level of a
// walk) holds no commit meanwhile. As after Yield, the heap may have moved.
func (v View) Outside(fn func()) {
	v.h.mu.RUnlock()
	defer v.h.mu.RLock()
	fn()
}

// Version is the graphVersion seen by this view.
func (v View) Version() uint64 { return v.h.version }

// LimitReason is status.ReasonHeapNodeLimit, status.ReasonHeapEdgeLimit or "".
func (v View) LimitReason() string { return v.h.limitReason }

// NumNodes bounds every NodeID of this view (ids are < NumNodes).
func (v View) NumNodes() int { return len(v.h.nodes) }

// Pubkey finds the node of a hex pubkey.
func (v View) Pubkey(hexKey string) (NodeID, bool) {
	return v.Subject('p', hexKey)
}

// Subject finds the node of a subject given as in a statement's subject tag:
// 'p' hex pubkey, 'e' hex event id, 'i' typed subject.
func (v View) Subject(tag byte, value string) (NodeID, bool) {
	key, ok := subjectKey(tag, value)
	if !ok {
		return NoNode, false
	}
	n, ok := v.h.nodeIdx[key]
	return n, ok
}

// Text is the public form of a node: hex for pubkeys and event ids, the
// typed subject (user:id:N, …) otherwise.
func (v View) Text(n NodeID) string { return keyText(v.h.nodes[n].key) }

// AppendText appends node n's Text to dst: an answer writes thousands of
// keys into one buffer rather than a string each.
func (v View) AppendText(dst []byte, n NodeID) []byte {
	key := v.h.nodes[n].key
	if key[0] == tagTyped {
		return append(dst, key[1:]...)
	}
	return hex.AppendEncode(dst, []byte(key[1:]))
}

// OrderKey is the 32 raw bytes of a pubkey node as four big-endian words:
// comparing them word by word orders pubkey nodes as their hex does, without
// touching the node table during a sort. It is meaningless for other nodes.
func (v View) OrderKey(n NodeID) [4]uint64 {
	k := v.h.nodes[n].key
	var x [4]uint64
	if len(k) != 33 {
		return x
	}
	for i := 0; i < 32; i++ {
		x[i/8] = x[i/8]<<8 | uint64(k[1+i])
	}
	return x
}

// HopContext is the one context, besides global, whose positive statements
// are hops (as the extension walks): other contexts (`development`,
// `identity:work`) are evidence about a subject, not trust in its judgement.
const HopContext = "identity"

// HopScope is the scope whose statements take precedence in hops, as they do
// in answers asked without a scope: the scope profile (x.com, the only one).
const HopScope = validation.DefaultScope

// Hops appends to dst the pubkeys author n has an active positive 32009
// statement, global or in HopContext, about at unix time now: a `p` subject, or an X account bound to
// a pubkey by trusted authors' hints (boundTo). Per subject and context the
// statement that answers is chosen as in Statements (HopScope first, then
// unscoped, newest first; deletes and statements outside their window fall
// through), so an x.com distrust outranks an unscoped trust. It also returns
// the earliest time after now at which one of those statements, or a hint
// binding one of their X accounts, enters or leaves its window (0 = none), so a
// caller can schedule the next walk.
func (v View) Hops(n NodeID, now int64, trusted Trusted, dst []NodeID) ([]NodeID, int64) {
	identity, hasIdentity := v.h.strIdx[HopContext]
	rank := func(e *edge) (group uint32, order int, ok bool) {
		if e.context != 0 && (!hasIdentity || e.context != identity) {
			return 0, 0, false
		}
		order, ok = v.scopeRank(e.scope, HopScope)
		return e.context, order, ok
	}
	scratch := answerScratchPool.Get().(*answerScratch)
	defer answerScratchPool.Put(scratch)
	answers, next := v.answering(n, now, rank, scratch)
	for _, ei := range answers {
		e := v.h.edges.at(ei)
		if e.value != 1 {
			continue
		}
		target, change := v.hopTarget(e, now, trusted)
		next = earliest(next, change)
		if target != NoNode {
			dst = append(dst, target)
		}
	}
	return dst, next
}

// Opinion is what one author's answering statement says of one pubkey.
type Opinion struct {
	Subject NodeID // a pubkey node
	Value   int    // -1, 0 or 1
}

// Opinions appends to dst author n's 32009 opinions of pubkeys at now, as a
// resolver walk in context and scope counts them: per subject, the statement
// Statements would answer with (the narrowest context level of context's
// chain, then scope rank, then newest; deletes and statements outside their
// window fall through, a neutral answers). An X account stands for the pubkey
// trusted hints bind it to (boundTo); a statement about the pubkey itself
// comes before one about its account. next is as for Hops.
func (v View) Opinions(n NodeID, context, scope string, now int64, trusted Trusted, dst []Opinion) ([]Opinion, int64) {
	levels := v.contextChain(context)
	rank := func(e *edge) (group uint32, order int, ok bool) {
		level := slices.Index(levels, e.context)
		if level < 0 {
			return 0, 0, false
		}
		r, ok := v.scopeRank(e.scope, scope)
		return 0, 2*level + r, ok
	}
	scratch := answerScratchPool.Get().(*answerScratch)
	defer answerScratchPool.Put(scratch)
	answers, next := v.answering(n, now, rank, scratch)
	start := len(dst)
	for _, ei := range answers {
		e := v.h.edges.at(ei)
		target, change := v.hopTarget(e, now, trusted)
		next = earliest(next, change)
		if target == NoNode {
			continue
		}
		if i := slices.IndexFunc(dst[start:], func(o Opinion) bool { return o.Subject == target }); i >= 0 {
			if e.pubkeySubject {
				dst[start+i].Value = int(e.value) // the pubkey's own statement outranks its account's
			}
			continue
		}
		dst = append(dst, Opinion{Subject: target, Value: int(e.value)})
	}
	return dst, next
}

// hopTarget is the pubkey node a statement is about: its subject, or the
// pubkey an X account subject is bound to (NoNode when none, or when the
// subject is neither).
func (v View) hopTarget(e *edge, now int64, trusted Trusted) (NodeID, int64) {
	if e.pubkeySubject {
		return e.subject, 0
	}
	if !v.h.hopSubject(e.subject) {
		return NoNode, 0
	}
	return v.boundTo(e.subject, now, trusted)
}

// answering are the edges that answer for author n: of n's 32009 edges that
// rank accepts, per subject and rank group the first active one in rank
// order (then newest first). next is the earliest time after now at which
// any ranked edge enters or leaves its window (0 = none): the answer may
// change then. The answers live in scratch, valid until its next use.
func (v View) answering(n NodeID, now int64, rank func(*edge) (group uint32, order int, ok bool), scratch *answerScratch) (answers []uint32, next int64) {
	cands := scratch.cands[:0]
	for _, ei := range v.h.nodes[n].out {
		e := v.h.edges.at(ei)
		if e.kind != kindCodeTrust {
			continue
		}
		group, order, ok := rank(e)
		if !ok {
			continue
		}
		_, change := e.window(now)
		next = earliest(next, change)
		cands = append(cands, answerCandidate{ei, e.subject, group, order, e.createdAt})
	}
	scratch.cands = cands
	answers = scratch.answers[:0]
	defer func() { scratch.answers = answers }()
	if !competing(cands) { // the common case: one slot per subject, nothing to rank
		for _, c := range cands {
			if v.h.edges.at(c.ei).activeAt(now) {
				answers = append(answers, c.ei)
			}
		}
		return answers, next
	}
	slices.SortFunc(cands, func(a, b answerCandidate) int {
		return cmp.Or(cmp.Compare(a.subject, b.subject), cmp.Compare(a.group, b.group),
			cmp.Compare(a.order, b.order), cmp.Compare(b.createdAt, a.createdAt))
	})
	answered := false
	for i, c := range cands {
		if i == 0 || c.subject != cands[i-1].subject || c.group != cands[i-1].group {
			answered = false
		}
		if !answered && v.h.edges.at(c.ei).activeAt(now) {
			answers = append(answers, c.ei)
			answered = true
		}
	}
	return answers, next
}

// answerCandidate is one ranked edge of an author.
type answerCandidate struct {
	ei        uint32
	subject   NodeID
	group     uint32
	order     int
	createdAt int64
}

// answerScratch is the reusable memory of answering: a frontier walk asks
// for every author's answers once.
type answerScratch struct {
	cands   []answerCandidate
	answers []uint32
}

var answerScratchPool = sync.Pool{New: func() any { return new(answerScratch) }}

// competing reports whether two candidates share a subject and group; for
// many candidates it assumes so (and the caller sorts).
func competing(cands []answerCandidate) bool {
	if len(cands) > 32 {
		return true
	}
	for i := range cands {
		for j := i + 1; j < len(cands); j++ {
			if cands[i].subject == cands[j].subject && cands[i].group == cands[j].group {
				return true
			}
		}
	}
	return false
}

// Aliases are the nodes that stand for the same identity as n at now, given
// who is trusted: for an X account its bound pubkey, for a pubkey the X
// accounts bound to it.
func (v View) Aliases(n NodeID, now int64, trusted Trusted) []NodeID {
	nd := &v.h.nodes[n]
	if nd.key[0] == tagTyped {
		if bound, _ := v.boundTo(n, now, trusted); bound != NoNode {
			return []NodeID{bound}
		}
		return nil
	}
	var out []NodeID
	for account := range v.h.ids.accounts[keyText(nd.key)] {
		if bound, _ := v.boundTo(account, now, trusted); bound == n {
			out = append(out, account)
		}
	}
	slices.SortFunc(out, func(a, b NodeID) int { return strings.Compare(v.h.nodes[a].key, v.h.nodes[b].key) })
	return out
}

// Bindings are the (X account, pubkey) pairs involving n that trusted
// authors' active statements hint, with their §6.3 states: for an X account
// all its hinted pubkeys, for a pubkey every X account hinted with it.
func (v View) Bindings(n NodeID, now int64, trusted Trusted) []Binding {
	nd := &v.h.nodes[n]
	if nd.key[0] == tagTyped {
		return v.bindings(n, now, trusted)
	}
	if nd.key[0] != tagPubkey {
		return nil
	}
	pubkey := keyText(nd.key)
	var out []Binding
	for account := range v.h.ids.accounts[pubkey] {
		for _, b := range v.bindings(account, now, trusted) {
			if b.Pubkey == pubkey {
				out = append(out, b)
			}
		}
	}
	slices.SortFunc(out, func(a, b Binding) int { return strings.Compare(a.XAccount, b.XAccount) })
	return out
}

// Evidence is the statement an author's slots resolve to for one subject.
type Evidence struct {
	Author    NodeID
	Subject   NodeID
	Value     int     // 32009: -1, 0, 1
	Score     float64 // 32014: the score, decimals kept (0..100)
	Context   string  // the context whose slot answered
	Scope     string  // canonical scope of that slot
	CreatedAt int64
	ID        [32]byte // the event's id; its text is the caller's to make (an answer makes thousands)
	Labels    []validation.Label
	Content   string // raw; sanitise before display
}

// Statements resolves, for every author accepted by accept (nil = all), the
// author's statement of the given kind about subject at unix time now.
//
// 32009 walks the context: the exact context, then each parent prefix, then
// global. At each level the slot whose scope contains the query scope comes
// first, then the empty-scope slot (with an empty query scope: the empty-scope
// slot, then any). A delete or a slot outside its [x, y] window falls
// through to the next candidate; an active slot, neutral included, answers.
// 32014 walks the same chain: the extension's rating query falls back to
// broader contexts (its code; its NIP-32014 text says exact context).
func (v View) Statements(subject NodeID, kind int, context, scope string, now int64, accept func(NodeID) bool) []Evidence {
	var kc uint8
	switch kind {
	case validation.KindTrust:
		kc = kindCodeTrust
	case validation.KindRating:
		kc = kindCodeRating
	default:
		return nil
	}
	levels := v.contextChain(context)
	type candidate struct {
		ei               uint32
		author           NodeID
		level, scopeRank int
	}
	var cands []candidate
	for _, ei := range v.h.nodes[subject].in {
		e := v.h.edges.at(ei)
		if e.kind != kc || (accept != nil && !accept(e.author)) {
			continue
		}
		level := slices.Index(levels, e.context)
		if level < 0 {
			continue
		}
		rank, ok := v.scopeRank(e.scope, scope)
		if !ok {
			continue
		}
		cands = append(cands, candidate{ei: ei, author: e.author, level: level, scopeRank: rank})
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(a.author, b.author),
			cmp.Compare(a.level, b.level),
			cmp.Compare(a.scopeRank, b.scopeRank),
			cmp.Compare(v.h.edges.at(b.ei).createdAt, v.h.edges.at(a.ei).createdAt),
		)
	})
	out := make([]Evidence, 0, len(cands)) // a popular subject's thousands: no growing
	for _, c := range cands {
		if n := len(out); n > 0 && out[n-1].Author == c.author {
			continue // this author already answered
		}
		e := v.h.edges.at(c.ei)
		if !e.activeAt(now) {
			continue
		}
		out = append(out, v.evidence(c.ei))
	}
	return out
}

// scoreUnit is a rating edge's value for a score of 1 (millionths).
const scoreUnit = 1e6

func (e *edge) activeAt(now int64) bool {
	active, _ := e.window(now)
	return !e.deleted && active
}

// window reports whether now is inside the edge's [x, y] window, and the
// next time after now that this changes (0 = never).
func (e *edge) window(now int64) (active bool, next int64) {
	switch {
	case now < e.activeFrom:
		return false, e.activeFrom
	case !e.expires:
		return true, 0
	case now > e.activeUntil:
		return false, 0
	}
	return true, e.activeUntil + 1
}

func (v View) evidence(ei uint32) Evidence {
	e := v.h.edges.at(ei)
	ev := Evidence{
		Author: e.author, Subject: e.subject, Value: int(e.value),
		Context: v.h.strs[e.context], Scope: v.h.strs[e.scope],
		CreatedAt: e.createdAt, ID: e.id,
	}
	if e.kind == kindCodeRating {
		ev.Value, ev.Score = 0, float64(e.value)/scoreUnit
	}
	if e.extra != 0 {
		x := &v.h.extras[e.extra]
		ev.Labels, ev.Content = x.labels, x.content
	}
	return ev
}

// contextChain is the interned ids of context, its parent prefixes and
// global, narrowest first. Levels never interned hold no slot and are left out.
func (v View) contextChain(context string) []uint32 {
	var chain []uint32
	for c := context; ; {
		if id, ok := v.h.strIdx[c]; ok {
			chain = append(chain, id)
		}
		if c == "" {
			return chain
		}
		if i := strings.LastIndexByte(c, ':'); i >= 0 {
			c = c[:i]
		} else {
			c = ""
		}
	}
}

// scopeRank orders a slot's scope for a query scope; ok=false excludes it.
func (v View) scopeRank(slotScope uint32, query string) (rank int, ok bool) {
	s := v.h.strs[slotScope]
	if query == "" {
		if s == "" {
			return 0, true
		}
		return 1, true
	}
	if s == "" {
		return 1, true
	}
	for part := range strings.SplitSeq(s, ",") {
		if part == query {
			return 0, true
		}
	}
	return 0, false
}
