package trustsync

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// Planning constants of SPEC §6.2 and §6.4.
const (
	BatchSize = 20               // authors (or subjects) per paged filter
	Overlap   = 60 * time.Second // re-read this much before a cursor
	retryBase = 30 * time.Second // first retry of a failed batch
	retryCap  = time.Hour
)

// WideBatch is how many keys one filter names when it is reconciled with
// NIP-77 rather than paged (keys fetched before, on a relay not known to
// refuse NIP-77): the relay then sends only what we lack, so a pass with
// nothing new costs a round trip per WideBatch keys instead of a REQ, and
// the newest event re-sent for the overlap, per BatchSize. 500 stays under
// strfry's limits: it serves authors × kinds < 1,000 from its (pubkey, kind)
// index, and its 128 KiB frames then keep 60 KiB for negentropy messages.
// A batch that cannot be reconciled is paged BatchSize keys at a time.
const WideBatch = 500

// wideHeldMax is the most held events a wide batch is reconciled over
// (its stamps are in memory meanwhile); past it the batch is paged.
const wideHeldMax = 50_000

// family is one filter family: a cursor scope and how its filters look.
type family struct {
	scope     string
	filter    func(keys []string) nostr.Filter
	validKey  func(string) bool
	capReason string // event cap of this family, "" = none
	cap       func(settings.Limits) int
	eventKeys func(*nostr.Event) []string // cursor keys of an event; nil = its author
	perAuthor bool                        // at most perAuthorCap events of one author per pass
}

// perAuthorCap is how many events of one author a pass keeps, newest first,
// as the extension: max(20, floor(maxEvents / maxTotalAuthors)), so one
// prolific author cannot spend the pass's whole budget.
func perAuthorCap(l settings.Limits) int {
	return max(20, l.MaxEvents/max(l.MaxTotalAuthors, 1))
}

var (
	trustFamily = family{
		scope: "trust",
		filter: func(keys []string) nostr.Filter {
			return nostr.Filter{Kinds: []int{validation.KindTrust}, Authors: keys}
		},
		validKey:  isHexKey,
		capReason: status.ReasonMaxEvents,
		cap:       func(l settings.Limits) int { return l.MaxEvents },
		perAuthor: true,
	}
	ratingsFamily = family{
		scope: "ratings",
		// No "#s": eligibility (s=x.com) is checked at ingest (SPEC §6.2).
		// strfry serves any filter with a tag from its tag index, scanning
		// every x.com event newest first for the 20 authors: 108 ms a REQ
		// with 100,000 ratings held, against a few ms from its (pubkey,
		// kind) index without it.
		filter: func(keys []string) nostr.Filter {
			return nostr.Filter{Kinds: []int{validation.KindRating}, Authors: keys}
		},
		validKey:  isHexKey,
		capReason: status.ReasonMaxRatingEvents,
		cap:       func(l settings.Limits) int { return l.MaxRatingEvents },
	}
	discoveryFamily = family{
		scope: "discovery",
		// Only "#i", without the extension's "#k":["user:id"]: strfry scans
		// the tag index of the filter's tag with the fewest values, so with
		// "#k" it would walk every X-account statement it holds (k=user:id)
		// for each REQ, while "#i" alone seeks the named accounts. A valid
		// statement naming user:id:N carries k=user:id or no k, and both
		// are about the account, so nothing the spec's filter matches is lost.
		filter: func(keys []string) nostr.Filter {
			return nostr.Filter{Kinds: []int{validation.KindTrust}, Tags: nostr.TagMap{"i": keys}}
		},
		validKey:  isXSubject,
		capReason: status.ReasonMaxDiscoveryEvents,
		cap:       func(l settings.Limits) int { return l.MaxDiscoveryEvents },
		eventKeys: func(ev *nostr.Event) []string {
			var out []string
			for t := range ev.Tags.FindAll("i") {
				out = append(out, t[1])
			}
			return out
		},
	}
	claimsFamily = family{
		scope: "claims",
		filter: func(keys []string) nostr.Filter {
			return nostr.Filter{Kinds: []int{validation.KindClaims}, Authors: keys}
		},
		validKey: isHexKey,
	}
)

func isHexKey(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if !lowerHex[s[i]] {
			return false
		}
	}
	return true
}

// lowerHex marks the bytes of lower-case hex: every key of every family is
// checked at every step of a walk, 300,000 of them at that size.
var lowerHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()

func isXSubject(s string) bool {
	digits, ok := strings.CutPrefix(s, "user:id:")
	if !ok || digits == "" {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// normalizeKeys lower-cases (hex keys only), drops invalid keys, dedupes and sorts.
func (f family) normalizeKeys(keys []string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !f.validKey(k) { // a hex key in capitals is taken lower-cased
			if k = strings.ToLower(k); !isHexKey(k) || !f.validKey(k) {
				continue
			}
		}
		out = append(out, k)
	}
	if !slices.IsSorted(out) { // a frontier's authors come sorted: 100,000 of them at every step of a pass
		slices.Sort(out)
	}
	return slices.Compact(out)
}

// sortedMinus are the keys of a (sorted, distinct) not in b (sorted).
func sortedMinus(a, b []string) []string {
	var out []string
	j := 0
	for _, k := range a {
		for j < len(b) && b[j] < k {
			j++
		}
		if j == len(b) || b[j] != k {
			out = append(out, k)
		}
	}
	return out
}

// sortedUnion merges two sorted sets with no key in common.
func sortedUnion(a, b []string) []string {
	if len(a) == 0 || len(b) == 0 {
		return append(slices.Clip(a), b...)
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out, i = append(out, a[i]), i+1
		} else {
			out, j = append(out, b[j]), j+1
		}
	}
	return append(append(out, a[i:]...), b[j:]...)
}

// batch is one filter: keys sharing a since (nil = full fetch), at most
// BatchSize of them unless it is to be reconciled.
type batch struct {
	keys  []string
	since *nostr.Timestamp
	// reconcile: keys fetched before (up to WideBatch), asked with NIP-77
	// whatever the since, and paged BatchSize at a time if it cannot be
	reconcile bool
}

// plan splits keys into batches. Keys needing a full fetch (no cursor, or a
// cursor last completed on an earlier UTC day: the daily full refresh) are
// batched apart from incremental ones, which are grouped by cursor so one
// new author does not turn a whole batch into a full fetch. Keys in retry
// backoff are returned as deferred unless force is set. floor, when not 0,
// raises every incremental since to at least that time (live reconnects).
// With wide set, keys fetched from the relay before are batched WideBatch at
// a time (to be reconciled, also when nothing of theirs is held: the relay
// then says in one round trip whether it has anything); keys never fetched
// are paged, BatchSize at a time.
func plan(keys []string, cursors map[string]store.Cursor, now time.Time, force bool, floor int64, wide bool) (batches []batch, deferred []string) {
	today := utcDay(now.Unix())
	// [fetched before][full] keys: fetched ones go wide when wide is set
	var groups [2][2][]string
	for _, k := range keys {
		c, ok := cursors[k]
		if ok && !force && c.NextRetryAt > now.Unix() {
			deferred = append(deferred, k)
			continue
		}
		seen := wide && ok // fetched before from this relay
		full := !ok || c.LastEoseAt == 0 || utcDay(c.LastEoseAt) != today
		groups[b2i(seen)][b2i(full)] = append(groups[b2i(seen)][b2i(full)], k)
	}
	for seen, size := range []int{BatchSize, WideBatch} {
		for chunk := range slices.Chunk(groups[seen][1], size) {
			batches = append(batches, batch{keys: chunk, reconcile: seen == 1})
		}
		// sorted by cursor, read once per key: a comparator looking both
		// keys up in the map took most of a 100,000-key plan
		incremental := make([]seenKey, len(groups[seen][0]))
		for i, k := range groups[seen][0] {
			incremental[i] = seenKey{key: k, lastSeen: cursors[k].LastSeenCreatedAt}
		}
		slices.SortStableFunc(incremental, func(a, b seenKey) int { return cmp.Compare(a.lastSeen, b.lastSeen) })
		for chunk := range slices.Chunk(incremental, size) {
			since := max(chunk[0].lastSeen-int64(Overlap/time.Second), floor, 0)
			ts := nostr.Timestamp(since)
			keys := make([]string, len(chunk))
			for i, sk := range chunk {
				keys[i] = sk.key
			}
			slices.Sort(keys)
			batches = append(batches, batch{keys: keys, since: &ts, reconcile: seen == 1})
		}
	}
	return batches, deferred
}

// seenKey is a key with its cursor's newest created_at, which orders a plan's
// incremental batches.
type seenKey struct {
	key      string
	lastSeen int64
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func utcDay(unix int64) int64 { return unix / 86400 }

// completed returns the cursors of a batch that reached EOSE on an
// unsaturated final page: the newest created_at seen for each key, never past
// the REQ's start (a future-dated event cannot push it ahead), 0 when nothing
// was ever seen. Events published late with older timestamps are then still
// above the next pass's since. Only the UTC day of lastEoseAt is ever read
// (the daily full refresh), so a cursor that this EOSE leaves as it was the
// same day is not returned: a pass with nothing new writes no cursor again.
func completed(relay, scope string, keys []string, prev map[string]store.Cursor, seen newestSeen, reqStart, now time.Time) []store.Cursor {
	out := make([]store.Cursor, 0, len(keys))
	for _, k := range keys {
		c := store.Cursor{
			CursorKey:         store.CursorKey{Relay: relay, Scope: scope, Author: k},
			LastSeenCreatedAt: min(max(prev[k].LastSeenCreatedAt, seen[k]), reqStart.Unix()),
			LastEoseAt:        now.Unix(),
		}
		if p, ok := prev[k]; ok && p.LastEoseAt > 0 && utcDay(p.LastEoseAt) == utcDay(c.LastEoseAt) &&
			p.LastSeenCreatedAt == c.LastSeenCreatedAt && !p.Retrying() {
			continue
		}
		out = append(out, c)
	}
	return out
}

// newestSeen is the newest created_at a relay sent per cursor key.
type newestSeen map[string]int64

func (n newestSeen) add(f *family, evs []*nostr.Event) {
	for _, ev := range evs {
		for _, k := range f.keysOf(ev) {
			n[k] = max(n[k], int64(ev.CreatedAt))
		}
	}
}

// keysOf are the cursor keys an event counts for: its author, or the family's
// own (the subjects it names, the one global key).
func (f *family) keysOf(ev *nostr.Event) []string {
	if f.eventKeys != nil {
		return f.eventKeys(ev)
	}
	return []string{ev.PubKey}
}

// failed keeps a batch's cursors and records the retry state: exponential
// backoff from 30 s to 1 h with ±20 % jitter.
func failed(relay, scope string, keys []string, prev map[string]store.Cursor, now time.Time, err error) []store.Cursor {
	out := make([]store.Cursor, len(keys))
	for i, k := range keys {
		c := prev[k]
		c.CursorKey = store.CursorKey{Relay: relay, Scope: scope, Author: k}
		c.Attempts++
		delay := retryCap
		if shift := c.Attempts - 1; shift < 12 && retryBase<<shift < retryCap {
			delay = retryBase << shift
		}
		delay = time.Duration(float64(delay) * (0.8 + 0.4*rand.Float64()))
		c.NextRetryAt = now.Add(delay).Unix()
		c.LastError = err.Error()
		out[i] = c
	}
	return out
}
