package heap

import (
	"context"
	"slices"
	"strings"

	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// xAccountPrefix starts an X account subject, `user:id:<digits>`.
const xAccountPrefix = "user:id:"

// xScope is the scope a statement must carry for its hints to bind.
const xScope = "x.com"

// bindingShaped reports whether a statement's npub hints may bind its X
// account (SPEC §6.3): a non-delete 32009 about `user:id:N` scoped to x.com.
// Whether it is active and by a frontier author is decided when the graph is
// read (View.boundTo), since both change without the statement changing.
func bindingShaped(s *validation.Statement) bool {
	return s.Kind == validation.KindTrust && !s.Deleted() && s.SubjectTag == 'i' &&
		strings.HasPrefix(s.Subject, xAccountPrefix) && slices.Contains(s.Scopes, xScope)
}

// Binding states of an (X account, pubkey) pair (SPEC §6.3).
const (
	StatePending   = "claims-pending" // the pubkey's 10011 is not fetched yet
	StateBound     = "bound"
	StateUnclaimed = "unclaimed" // fetched, no matching claim
	StateRevoked   = "revoked"   // a newer 10011 dropped the claim
	StateConflict  = "conflict"  // two or more pubkeys bound to the account
)

type claimRecord struct {
	createdAt  int64
	id         string
	twitterIDs []string
}

type claimPair struct{ pubkey, twitterID string }

// identities is the §6.3 state: which pubkeys held binding-shaped statements
// name as the owner of an X account (npub hints) and what each pubkey's
// latest 10011 says.
// Like the rest of the heap it caches the store: everClaimed and fetched are
// loaded by Build and kept current as the store is (applyClaims mirrors the
// claim history SaveBatch writes; ClaimsFetched follows RecordClaimsFetched).
type identities struct {
	// hinted: X account node -> hinted pubkey (hex) -> held statements naming it.
	hinted map[NodeID]map[string]int32
	// hintEdges: X account node -> the edges about it whose hints name
	// pubkeys (the statements hinted counts). Reading a binding visits these
	// rather than every edge about the account: a popular account's ratings
	// are tens of thousands, and each is a cache miss.
	hintEdges map[NodeID][]uint32
	// accounts is the reverse index: pubkey (hex) -> X accounts hinting it.
	accounts map[string]map[NodeID]struct{}
	// claimants: X account node -> the hinted pubkeys whose latest 10011
	// claims it, as nodes. Only these can be bound; which one is, depends on
	// who hinted them (View.boundTo).
	claimants map[NodeID][]NodeID
	claims    map[string]claimRecord // pubkey (hex) -> latest 10011
	// everClaimed: pairs claimed by any stored 10011, which tells "revoked"
	// from "unclaimed".
	everClaimed map[claimPair]struct{}
	// fetched: pubkeys whose 10011 the sync asked relays for; without a held
	// 10011 their pairs are "unclaimed", not "pending".
	fetched map[string]struct{}
}

func newIdentities() identities {
	return identities{
		hinted:      make(map[NodeID]map[string]int32),
		hintEdges:   make(map[NodeID][]uint32),
		accounts:    make(map[string]map[NodeID]struct{}),
		claimants:   make(map[NodeID][]NodeID),
		claims:      make(map[string]claimRecord),
		everClaimed: make(map[claimPair]struct{}),
		fetched:     make(map[string]struct{}),
	}
}

// IdentitySource is the store's record of the identity facts no held event
// shows: the claim history and the fetched claims.
type IdentitySource interface {
	EachClaimedPair(ctx context.Context, fn func(pubkey, twitterID string)) error
	ClaimsFetched() ([]string, error)
}

// loadIdentities fills everClaimed and fetched from the store.
func (h *Heap) loadIdentities(ctx context.Context, src IdentitySource) error {
	fetched, err := src.ClaimsFetched()
	if err != nil {
		return err
	}
	h.lock()
	defer h.mu.Unlock()
	for _, p := range fetched {
		h.ids.fetched[p] = struct{}{}
	}
	return src.EachClaimedPair(ctx, func(pubkey, twitterID string) {
		h.ids.everClaimed[claimPair{pubkey, twitterID}] = struct{}{}
	})
}

// Binding is one (X account, pubkey) pair named by a held hint, and its state.
type Binding struct {
	XAccount string `json:"xAccount"` // user:id:N
	Pubkey   string `json:"pubkey"`   // hex
	State    string `json:"state"`
}

// updateHints moves the hint counts of X account n from old to new, the
// hints edge ei held and holds, and reports whether a binding of n may have
// changed: its claimants changed, or hints of an account with claimants
// moved (a hinter's trust decides).
func (h *Heap) updateHints(n NodeID, ei uint32, old, new []string) bool {
	switch {
	case len(old) == 0 && len(new) == 0:
		return false
	case len(old) == 0:
		h.ids.hintEdges[n] = append(h.ids.hintEdges[n], ei)
	case len(new) == 0:
		edges := slices.DeleteFunc(h.ids.hintEdges[n], func(x uint32) bool { return x == ei })
		if len(edges) == 0 {
			delete(h.ids.hintEdges, n)
		} else {
			h.ids.hintEdges[n] = edges
		}
	}
	counts := h.ids.hinted[n]
	for _, p := range old {
		if counts[p]--; counts[p] <= 0 {
			delete(counts, p)
			delete(h.ids.accounts[p], n)
			if len(h.ids.accounts[p]) == 0 {
				delete(h.ids.accounts, p)
			}
		}
	}
	for _, p := range new {
		if counts == nil {
			counts = make(map[string]int32)
			h.ids.hinted[n] = counts
		}
		if counts[p]++; counts[p] == 1 {
			if h.ids.accounts[p] == nil {
				h.ids.accounts[p] = make(map[NodeID]struct{})
			}
			h.ids.accounts[p][n] = struct{}{}
		}
	}
	if len(counts) == 0 {
		delete(h.ids.hinted, n)
	}
	return h.recountClaimants(n) || len(h.ids.claimants[n]) > 0
}

// recountClaimants recomputes the claimants of X account n, giving each a
// node, and reports whether they changed.
func (h *Heap) recountClaimants(n NodeID) bool {
	twitterID := h.nodes[n].key[1+len(xAccountPrefix):]
	var claimants []NodeID
	for p := range h.ids.hinted[n] {
		if !h.claimsHold(p, twitterID) {
			continue
		}
		key, _ := pubkeyKey(p)
		c, ok := h.nodeIdx[key]
		if !ok {
			if len(h.nodes) >= h.nodeLimit {
				h.refuse(status.ReasonHeapNodeLimit)
				continue
			}
			c = h.addNode(key)
		}
		claimants = append(claimants, c)
	}
	slices.Sort(claimants)
	if slices.Equal(claimants, h.ids.claimants[n]) {
		return false
	}
	if len(claimants) == 0 {
		delete(h.ids.claimants, n)
	} else {
		h.ids.claimants[n] = claimants
	}
	return true
}

func (h *Heap) claimsHold(pubkey, twitterID string) bool {
	c, ok := h.ids.claims[pubkey]
	return ok && slices.Contains(c.twitterIDs, twitterID)
}

func (h *Heap) applyClaims(c *validation.Claims) (applied, hops bool) {
	if _, ok := pubkeyKey(c.Author); !ok {
		return false, false
	}
	held, ok := h.ids.claims[c.Author]
	if ok && (c.CreatedAt < held.createdAt || (c.CreatedAt == held.createdAt && c.ID >= held.id)) {
		return false, false
	}
	h.ids.claims[c.Author] = claimRecord{createdAt: c.CreatedAt, id: c.ID, twitterIDs: slices.Clone(c.TwitterIDs)}
	for _, id := range c.TwitterIDs {
		h.ids.everClaimed[claimPair{c.Author, id}] = struct{}{}
	}
	for _, id := range slices.Concat(held.twitterIDs, c.TwitterIDs) {
		if n, ok := h.nodeIdx[string(tagTyped)+xAccountPrefix+id]; ok {
			if _, hinted := h.ids.hinted[n]; hinted && h.recountClaimants(n) {
				h.noteAccountSpeakers(n)
				hops = true
			}
		}
	}
	return true, hops
}

// ClaimsFetched records that the sync asked relays for these pubkeys' 10011:
// while none is held, their pairs are "unclaimed" instead of "pending".
func (h *Heap) ClaimsFetched(pubkeys []string) {
	h.lock()
	defer h.mu.Unlock()
	for _, p := range pubkeys {
		if _, done := h.ids.fetched[p]; done {
			continue
		}
		h.ids.fetched[p] = struct{}{}
		if _, held := h.ids.claims[p]; !held {
			h.version++
		}
	}
}

// ClaimCandidates are the pubkeys named by held npub hints whose 10011 is
// neither held nor known to be missing: the claims the sync should fetch.
// The list is sorted after the read lock is given up: the sort needs
// nothing of the heap, and a commit waits for the lock.
func (h *Heap) ClaimCandidates() []string {
	h.mu.RLock()
	out := make([]string, 0, len(h.ids.accounts))
	for p := range h.ids.accounts {
		_, held := h.ids.claims[p]
		_, fetched := h.ids.fetched[p]
		if !held && !fetched {
			out = append(out, p)
		}
	}
	h.mu.RUnlock()
	slices.Sort(out)
	return out
}

// DiscoverySubjects are the X accounts (`user:id:N`) named in held hinted
// statements: the sync asks relays for every statement about them.
func (h *Heap) DiscoverySubjects() []string {
	h.mu.RLock()
	out := make([]string, 0, len(h.ids.hinted))
	for n := range h.ids.hinted {
		out = append(out, h.nodes[n].key[1:])
	}
	h.mu.RUnlock()
	slices.Sort(out) // outside the lock, as ClaimCandidates
	return out
}
