package frontier

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"slices"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// A walk is kept with the heap's snapshot (SPEC §4), so that a start with
// nothing changed takes it instead of walking again: at 100,000 people the
// walk was a quarter of the time to a start's first answer. It is taken
// only for the heap it was walked over (the graph version), the roots and
// limits the tracker has, and before any hop window it saw opens or closes.

// savedFormat changes with what Saved writes.
const savedFormat = 1

// savedHead is a saved walk less its authors, which follow it as records of
// savedAuthorSize bytes: node, parent (little-endian), depth.
type savedHead struct {
	Format       int
	GraphVersion uint64
	NextChange   int64
	Limits       settings.Limits
	Roots        []string // the roots walked from: the configured ones
	WalkedRoots  []string // Result.Roots
	ByDepth      []int
	Truncation   []status.Truncation
	Authors      int
	Unplaced     []string // pubkeys of the authors with no heap node, in walk order
}

const savedAuthorSize = 9

// Saved is a walk of the heap as it is now, from the configured roots, for
// Adopt: the current one, or one made here when a change waits for its
// walk (a close comes before the debounce). It is nil when none can be
// kept: the frontier follows a question's or a session's roots, or the heap
// is at a guardrail (walks then freeze to the one before, which a start
// does not have).
func (t *Tracker) Saved() []byte {
	t.mu.Lock()
	walked, roots, limits := t.walked, t.roots, t.limits
	followed := len(t.asked) > 0 || len(t.sessions) > 0
	t.mu.Unlock()
	if followed {
		return nil
	}
	stale := t.Stale()
	var out []byte
	t.h.View(func(v heap.View) {
		if v.LimitReason() != "" {
			return
		}
		now := t.clock.Now().Unix()
		if walked == nil || stale || v.Version() != walked.GraphVersion || walked.NextChange != 0 && now >= walked.NextChange {
			walked = Walk(v, Params{Roots: roots, Limits: limits, Now: now})
		}
		head := savedHead{
			Format: savedFormat, GraphVersion: walked.GraphVersion, NextChange: walked.NextChange,
			Limits: limits, Roots: roots, WalkedRoots: walked.Roots, ByDepth: walked.ByDepth,
			Truncation: walked.Truncation, Authors: len(walked.Authors),
		}
		for _, a := range walked.Authors {
			if a.node == heap.NoNode {
				head.Unplaced = append(head.Unplaced, a.Pubkey)
			}
		}
		js, err := json.Marshal(head)
		if err != nil {
			return
		}
		out = binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(js)+savedAuthorSize*len(walked.Authors)), uint32(len(js)))
		out = append(out, js...)
		for _, a := range walked.Authors {
			out = binary.LittleEndian.AppendUint32(out, uint32(a.node))
			out = binary.LittleEndian.AppendUint32(out, uint32(int32(a.Parent)))
			out = append(out, uint8(a.Depth))
		}
	})
	return out
}

// Adopt makes a walk Saved wrote the current frontier when it still holds:
// walked over the heap as it is, from the tracker's roots with its limits,
// and no hop window it saw opened or closed since. It reports whether it
// did; call it before Run, in place of the first Recompute.
func (t *Tracker) Adopt(saved []byte) bool {
	if len(saved) < 4 {
		return false
	}
	n := int(binary.LittleEndian.Uint32(saved))
	if n > len(saved)-4 {
		return false
	}
	var head savedHead
	if json.Unmarshal(saved[4:4+n], &head) != nil || head.Format != savedFormat {
		return false
	}
	records := saved[4+n:]
	if head.Authors < 0 || len(records) != savedAuthorSize*head.Authors {
		return false
	}
	t.mu.Lock()
	fits := t.walked == nil && len(t.sessions) == 0 && len(t.asked) == 0 &&
		slices.Equal(head.Roots, t.roots) && reflect.DeepEqual(head.Limits, t.limits) &&
		(head.NextChange == 0 || t.clock.Now().Unix() < head.NextChange)
	t.mu.Unlock()
	if !fits {
		return false
	}
	var r *Result
	t.h.View(func(v heap.View) {
		if v.Version() == head.GraphVersion && v.LimitReason() == "" {
			r = head.result(v, records)
		}
	})
	if r == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.walked != nil { // a walk ran meanwhile: it is newer
		return false
	}
	t.stale.Store(false)
	t.publishLocked(r)
	return true
}

// result rebuilds the walk from its records, nil when one does not fit the
// heap.
func (head *savedHead) result(v heap.View, records []byte) *Result {
	r := &Result{
		Roots: head.WalkedRoots, ByDepth: head.ByDepth, Truncation: head.Truncation,
		GraphVersion: head.GraphVersion, NextChange: head.NextChange,
		Authors: make([]Author, head.Authors), nodeDepth: make([]uint8, v.NumNodes()),
	}
	unplaced := head.Unplaced
	text := make([]byte, 0, hexKeyLen*head.Authors) // every pubkey in one string, as admit does
	for i := range r.Authors {
		rec := records[savedAuthorSize*i:]
		node := heap.NodeID(binary.LittleEndian.Uint32(rec))
		a := Author{node: node, Parent: int(int32(binary.LittleEndian.Uint32(rec[4:]))), Depth: int(rec[8])}
		if a.Parent < -1 || a.Parent >= i || a.Depth >= 255 {
			return nil
		}
		if node == heap.NoNode {
			if len(unplaced) == 0 {
				return nil
			}
			a.Pubkey, unplaced = unplaced[0], unplaced[1:]
		} else {
			if int(node) >= v.NumNodes() {
				return nil
			}
			text = appendHexKey(text, v.OrderKey(node))
			r.nodeDepth[node] = uint8(a.Depth + 1)
		}
		r.Authors[i] = a
	}
	all := string(text)
	for i := range r.Authors {
		if r.Authors[i].node != heap.NoNode {
			r.Authors[i].Pubkey, all = all[:hexKeyLen], all[hexKeyLen:]
		}
	}
	if len(unplaced) != 0 {
		return nil
	}
	return r
}
