// Package reposync is the repository-sync profile (SPEC §8, GRASP-02
// proactive sync): which NIP-34 events this server keeps, the state that
// decides it, and the plan of which relay to ask for what.
//
// Two kinds of state live here. The index answers acceptance questions at
// once (is this repository held, is this author a maintainer, is this a held
// root event); it changes at every commit. The plan holds the design's two
// maps (repo → root events, sync relay → repos) and changes only when the
// self-subscriber's 5 s window closes, so a burst of events costs one round
// of filter updates per relay.
package reposync

import (
	"encoding/hex"
	"slices"
	"strings"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip34"
)

// NIP-34 kinds this profile follows.
const (
	KindAnnouncement = 30617
	KindState        = 30618
	KindPatch        = 1617
	KindPR           = 1618
	KindPRUpdate     = 1619
	KindIssue        = 1621
)

// rootKinds are the kinds that start a thread under a repository.
var rootKinds = []int{KindPatch, KindPR, KindPRUpdate, KindIssue}

// isRootKind reports whether kind starts a thread (patch, PR, PR update, issue).
func isRootKind(kind int) bool { return slices.Contains(rootKinds, kind) }

// repoRef names a repository: "30617:<owner pubkey hex>:<d>".
type repoRef string

// makeRef is the reference of owner's repository d.
func makeRef(owner, d string) repoRef { return repoRef("30617:" + owner + ":" + d) }

// parseRef splits a repository reference; ok is false for anything that is
// not "30617:<64 hex>:<non-empty d>".
func parseRef(s string) (owner, d string, ok bool) {
	rest, found := strings.CutPrefix(s, "30617:")
	if !found || len(rest) < 66 || rest[64] != ':' || !nostr.IsValid32ByteHex(rest[:64]) {
		return "", "", false
	}
	return rest[:64], rest[65:], len(rest) > 65
}

// eventKey is an event id in 32 bytes instead of a 64-character string: the
// root-event maps hold tens of thousands of them.
type eventKey [32]byte

func parseEventKey(s string) (eventKey, bool) {
	var k eventKey
	if len(s) != 64 {
		return k, false
	}
	_, err := hex.Decode(k[:], []byte(s))
	return k, err == nil
}

func (k eventKey) String() string { return hex.EncodeToString(k[:]) }

// Normalizer turns a relay URL into its canonical form (scheme and host
// lower-cased, default port and one trailing "/" removed), or fails.
type Normalizer func(string) (string, error)

// announcement is the part of a kind 30617 event the profile acts on.
type announcement struct {
	ID          string
	Owner       string
	D           string
	Name        string
	CreatedAt   int64
	Relays      []string // normalised, sorted, unique; unparseable URLs left out
	Maintainers []string // hex pubkeys, sorted, unique, not the owner

	ref repoRef // Ref(), kept once the index holds the announcement
}

// parseAnnouncement reads a kind 30617 event. Relays from every `relays` tag
// count; maintainers that are not hex pubkeys are ignored.
func parseAnnouncement(ev *nostr.Event, normalize Normalizer) announcement {
	repo := nip34.ParseRepository(*ev)
	a := announcement{ID: ev.ID, Owner: ev.PubKey, D: repo.ID, Name: repo.Name, CreatedAt: int64(ev.CreatedAt)}
	for _, u := range repo.Relays {
		if n, err := normalize(u); err == nil {
			a.Relays = append(a.Relays, n)
		}
	}
	for _, m := range repo.Maintainers {
		if m = strings.ToLower(m); nostr.IsValid32ByteHex(m) && m != ev.PubKey {
			a.Maintainers = append(a.Maintainers, m)
		}
	}
	slices.Sort(a.Relays)
	a.Relays = slices.Compact(a.Relays)
	slices.Sort(a.Maintainers)
	a.Maintainers = slices.Compact(a.Maintainers)
	return a
}

// Ref is the announcement's repository reference.
func (a *announcement) Ref() repoRef { return makeRef(a.Owner, a.D) }

// Lists reports whether one of the announcement's relays is one of services.
func (a *announcement) Lists(services []string) bool {
	for _, r := range a.Relays {
		if slices.Contains(services, r) {
			return true
		}
	}
	return false
}

// taggedRefs are the repository references an event names by `a`, `A` or
// `q`; taggedIDs the event ids it names by `e`, `E` or `q` (layers 2 and 3).
func taggedRefs(ev *nostr.Event) []string { return tagValues(ev, "a", "A", "q") }
func taggedIDs(ev *nostr.Event) []string  { return tagValues(ev, "e", "E", "q") }

func tagValues(ev *nostr.Event, names ...string) []string {
	var out []string
	for _, t := range ev.Tags {
		if len(t) >= 2 && slices.Contains(names, t[0]) {
			out = append(out, t[1])
		}
	}
	return out
}

// rootRefs are the repositories a root event belongs to: its `a` tags.
func rootRefs(ev *nostr.Event) []repoRef {
	var out []repoRef
	for _, v := range tagValues(ev, "a") {
		if _, _, ok := parseRef(v); ok && !slices.Contains(out, repoRef(v)) {
			out = append(out, repoRef(v))
		}
	}
	return out
}
