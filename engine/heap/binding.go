package heap

import (
	"slices"
	"strings"
)

// Trusted tells which authors' hints may bind an X account: the frontier's
// (SPEC §6.3). A stranger's hint never binds, or anyone could name their own
// key for an account the user trusts and publish a matching 10011.
type Trusted func(author NodeID) bool

// trustedHints are the pubkeys (hex, sorted) named by the hints of X account
// n's binding-shaped statements that are by trusted authors and active at
// now, and the earliest time after now one of those statements enters or
// leaves its window (0 = none).
func (v View) trustedHints(n NodeID, now int64, trusted Trusted) (pubkeys []string, next int64) {
	pubkeys, next, _ = v.trustedHintsUntil(n, now, trusted, "")
	return pubkeys, next
}

// trustedHintsUntil is trustedHints, unless a trusted statement active for
// good (no window to leave) hints settled: then it stops there and reports
// found, the rest unread. A popular account is hinted by thousands of
// statements, and a binding with one claimant needs only one of them.
func (v View) trustedHintsUntil(n NodeID, now int64, trusted Trusted, settled string) (pubkeys []string, next int64, found bool) {
	for _, ei := range v.h.ids.hintEdges[n] {
		e := v.h.edges.at(ei)
		if !trusted(e.author) {
			continue
		}
		active, change := e.window(now)
		if !active {
			next = earliest(next, change)
			continue
		}
		hints := v.h.extras[e.extra].hints
		if change == 0 && settled != "" && slices.Contains(hints, settled) {
			return nil, 0, true
		}
		next = earliest(next, change)
		for _, p := range hints {
			if !slices.Contains(pubkeys, p) {
				pubkeys = append(pubkeys, p)
			}
		}
	}
	slices.Sort(pubkeys)
	return pubkeys, next, false
}

// HintedPubkeys are the pubkeys that can bind an X account at now: named by
// the hints of trusted authors' active statements (the rule of trustedHints),
// sorted. The sync fetches their 10011 again on its daily refresh, so a
// revoked or late claim is seen. next is when a window of one of those
// statements next opens or closes (0 = never): the set may change then.
func (v View) HintedPubkeys(now int64, trusted Trusted) (pubkeys []string, next int64) {
	for n := range v.h.ids.hinted {
		hints, change := v.trustedHints(n, now, trusted)
		pubkeys = append(pubkeys, hints...)
		next = earliest(next, change)
	}
	slices.Sort(pubkeys)
	return slices.Compact(pubkeys), next
}

// earliest is the earlier of two future times, 0 meaning none.
func earliest(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// boundTo is the pubkey node X account n is bound to at now, given who is
// trusted: the one claimant (a hinted pubkey whose latest 10011 claims n)
// that a trusted, active statement hints. None, or several (a conflict),
// leave n unbound (NoNode). next is as for trustedHints.
func (v View) boundTo(n NodeID, now int64, trusted Trusted) (NodeID, int64) {
	if v.bound == nil {
		return v.bindingOf(n, now, trusted)
	}
	b, ok := v.bound[n]
	if !ok {
		b.owner, b.next = v.bindingOf(n, now, trusted)
		v.bound[n] = b
	}
	return b.owner, b.next
}

// bound is boundTo's answer for one X account.
type bound struct {
	owner NodeID
	next  int64
}

// WithBindings is v keeping each X account's binding (boundTo) from the
// first time it is asked, for a caller whose trusted authors and time stay
// the same while it uses the view (one level of a frontier walk). Otherwise
// every hop to an account reads all the statements about it again: at
// 100,000 authors that made a walk take 7 s instead of a fraction of one.
func (v View) WithBindings() View {
	v.bound = map[NodeID]bound{}
	return v
}

func (v View) bindingOf(n NodeID, now int64, trusted Trusted) (NodeID, int64) {
	claimants := v.h.ids.claimants[n]
	if len(claimants) == 0 {
		return NoNode, 0
	}
	// one claimant hinted by a statement active for good is bound whatever
	// the other statements say, now and later
	var settled string
	if len(claimants) == 1 {
		settled = keyText(v.h.nodes[claimants[0]].key)
	}
	hinted, next, found := v.trustedHintsUntil(n, now, trusted, settled)
	if found {
		return claimants[0], 0
	}
	owner, owners := NoNode, 0
	for _, c := range claimants {
		if _, ok := slices.BinarySearch(hinted, keyText(v.h.nodes[c].key)); ok {
			owner = c
			owners++
		}
	}
	if owners != 1 {
		return NoNode, next
	}
	return owner, next
}

// bindings lists the pairs of X account n that trusted, active statements
// hint, with their states.
func (v View) bindings(n NodeID, now int64, trusted Trusted) []Binding {
	hinted, _ := v.trustedHints(n, now, trusted)
	if len(hinted) == 0 {
		return nil
	}
	h := v.h
	account := h.nodes[n].key[1:]
	twitterID := strings.TrimPrefix(account, xAccountPrefix)
	claimants := 0
	for _, p := range hinted {
		if h.claimsHold(p, twitterID) {
			claimants++
		}
	}
	out := make([]Binding, 0, len(hinted))
	for _, p := range hinted {
		state := StatePending
		_, held := h.ids.claims[p]
		_, fetched := h.ids.fetched[p]
		switch {
		case h.claimsHold(p, twitterID) && claimants > 1:
			state = StateConflict
		case h.claimsHold(p, twitterID):
			state = StateBound
		case held:
			state = StateUnclaimed
			if _, ever := h.ids.everClaimed[claimPair{p, twitterID}]; ever {
				state = StateRevoked
			}
		case fetched:
			state = StateUnclaimed
		}
		out = append(out, Binding{XAccount: account, Pubkey: p, State: state})
	}
	return out
}

// HasHints reports whether author n holds a statement with npub hints:
// whether a walk trusts n then decides bindings (trustedHints).
func (v View) HasHints(n NodeID) bool {
	for _, ei := range v.h.nodes[n].out {
		if e := v.h.edges.at(ei); e.extra != 0 && len(v.h.extras[e.extra].hints) > 0 {
			return true
		}
	}
	return false
}

// Speakers calls fn with every author of a 32009 statement that Opinions
// may count as about pubkey node n: statements about n itself, and about X
// accounts whose hints name n (which may bind them to n). An author may come
// more than once.
func (v View) Speakers(n NodeID, fn func(author NodeID)) {
	about := func(x NodeID) {
		for _, ei := range v.h.nodes[x].in {
			if e := v.h.edges.at(ei); e.kind == kindCodeTrust {
				fn(e.author)
			}
		}
	}
	about(n)
	for account := range v.h.ids.accounts[keyText(v.h.nodes[n].key)] {
		about(account)
	}
}
