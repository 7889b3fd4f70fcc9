package trustsync

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"dtp-personal/engine/store"
)

// Keys fetched from the relay before go WideBatch to a filter, to be
// reconciled: today's from the oldest cursor among them less the overlap,
// yesterday's in full; keys never fetched are paged BatchSize at a time, as
// is everything when the relay refuses NIP-77 (wide unset).
func TestPlanBatchesFetchedKeysWide(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	cursors := map[string]store.Cursor{}
	var keys []string
	for i := range 1300 {
		k := fmt.Sprintf("k%04d", i)
		keys = append(keys, k)
		switch {
		case i < 1000: // fetched today (one saw nothing)
			cursors[k] = store.Cursor{LastSeenCreatedAt: int64(i % 900), LastEoseAt: now.Unix() - 10}
		case i < 1250: // fetched yesterday: the daily refresh
			cursors[k] = store.Cursor{LastSeenCreatedAt: 5, LastEoseAt: now.Unix() - 86400}
		}
	}
	count := func(bs []batch) (wide, paged, full int, sinces []int64) {
		for _, b := range bs {
			switch {
			case b.reconcile && len(b.keys) <= WideBatch:
				wide++
			case !b.reconcile && len(b.keys) <= BatchSize:
				paged++
			default:
				t.Fatalf("batch of %d keys, reconcile %v", len(b.keys), b.reconcile)
			}
			if b.since == nil {
				full++
			} else {
				sinces = append(sinces, int64(*b.since))
			}
		}
		return
	}
	batches, deferred := plan(keys, cursors, now, false, 0, true)
	wide, paged, full, sinces := count(batches)
	// 1,000 today (2 wide), 250 yesterday (1 wide, full), 50 new (3 paged, full)
	if len(deferred) != 0 || wide != 3 || paged != 3 || full != 4 || len(sinces) != 2 {
		t.Fatalf("%d wide, %d paged, %d full, sinces %v", wide, paged, full, sinces)
	}
	// the 1,000 sorted by cursor (0..99 twice, then 100..899): the first
	// 500 from max(0 - 60, 0), the rest from 400 - 60
	if sinces[0] != 0 || sinces[1] != 340 {
		t.Fatalf("sinces %v, want [0 340]", sinces)
	}
	batches, _ = plan(keys, cursors, now, false, 0, false)
	if wide, paged, _, _ := count(batches); wide != 0 || paged != 65 {
		t.Fatalf("without NIP-77: %d wide, %d paged, want 0 and 65", wide, paged)
	}
}

// Live filters of a large frontier are consolidated into fuller filters,
// but none names more than liveFilterKeys authors (strfry reads every event
// of the authors past 1,000 × kinds, and a relay's 128 KiB message has room
// for about 1,900 keys), and every author is followed.
func TestLiveGroupsStayWithinTheRelaysIndex(t *testing.T) {
	keys := make([]string, 100_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064x", i)
	}
	followed := map[*family]int{}
	for _, g := range (&liveRelay{}).groups(keys, 0, time.Now()) {
		ls := g.Label.(*liveSub)
		if n := len(g.Filters[0].Authors); n > liveFilterKeys || n != len(ls.keys) {
			t.Fatalf("a live filter of %d authors (label %d), want at most %d", n, len(ls.keys), liveFilterKeys)
		}
		followed[ls.fam] += len(ls.keys)
	}
	if followed[&trustFamily] != len(keys) || followed[&ratingsFamily] != len(keys) {
		t.Fatalf("followed %d trust and %d ratings authors of %d", followed[&trustFamily], followed[&ratingsFamily], len(keys))
	}
}

// normalizeKeys takes a hex key in capitals lower-cased, drops what its
// family cannot ask for, and sorts and dedupes the rest.
func TestNormalizeKeys(t *testing.T) {
	hexKey := strings.Repeat("ab", 32)
	for _, c := range []struct {
		f    family
		keys []string
		want []string
	}{
		{trustFamily, []string{strings.ToUpper(hexKey), "zz", hexKey, strings.Repeat("0", 64)}, []string{strings.Repeat("0", 64), hexKey}},
		{discoveryFamily, []string{"user:id:2", "USER:ID:1", hexKey, "user:id:1"}, []string{"user:id:1", "user:id:2"}},
		{claimsFamily, []string{"", strings.ToUpper(hexKey)}, []string{hexKey}},
	} {
		if got := c.f.normalizeKeys(c.keys); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q gave %q, want %q", c.f.scope, c.keys, got, c.want)
		}
	}
}

// The walk's sorted sets: what is new in a step, and the union it leaves.
func TestSortedMinusAndUnion(t *testing.T) {
	for _, c := range []struct{ a, b, minus []string }{
		{nil, nil, nil},
		{[]string{"a", "c", "e"}, nil, []string{"a", "c", "e"}},
		{[]string{"a", "c", "e"}, []string{"b", "c", "f"}, []string{"a", "e"}},
		{[]string{"b"}, []string{"a", "b", "c"}, nil},
		{[]string{"a", "b", "z"}, []string{"y"}, []string{"a", "b", "z"}},
	} {
		minus := sortedMinus(c.a, c.b)
		if !slices.Equal(minus, c.minus) {
			t.Errorf("%v minus %v = %v, want %v", c.a, c.b, minus, c.minus)
		}
		union := sortedUnion(c.b, minus)
		want := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(c.a), c.b...))))
		if !slices.Equal(union, want) && !(len(union) == 0 && len(want) == 0) {
			t.Errorf("%v with %v = %v, want %v", c.b, minus, union, want)
		}
	}
}
