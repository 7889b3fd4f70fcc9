package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/internal/testutil"
)

// queryFixture stores a mixed set of events and returns the ones held.
func queryFixture(t testing.TB, s *Store) []*nostr.Event {
	t.Helper()
	authors := []string{hex64("a0"), hex64("a1"), hex64("a2"), hex64("a3")}
	var evs []*nostr.Event
	for i := 0; i < 60; i++ {
		author := authors[i%len(authors)]
		at := int64(1000 + i%9) // many created_at ties
		tags := []nostr.Tag{{"p", authors[(i+1)%len(authors)]}}
		if i%2 == 0 {
			tags = append(tags, nostr.Tag{"s", "x.com"})
		}
		if i%5 == 0 {
			tags = append(tags, nostr.Tag{"i", fmt.Sprintf("user:id:%d", i%3)}, nostr.Tag{"I", "upper"})
		}
		if i%3 == 0 {
			tags = append(tags, nostr.Tag{"l", "unindexed"}) // a letter outside indexedTags
		}
		tags = append(tags, nostr.Tag{"alt", "not indexed"}, nostr.Tag{"t"})
		switch i % 4 {
		case 0, 1:
			evs = append(evs, mkEvent(1, author, at, tags...))
		case 2:
			tags = append(tags, nostr.Tag{"d", fmt.Sprint("slot", i)})
			evs = append(evs, mkEvent(32009, author, at, tags...))
		case 3:
			evs = append(evs, mkEvent(10011, author, at, tags...)) // one winner per author survives
		}
	}
	res := save(t, s, evs...)
	gone := map[string]bool{}
	for i, r := range res {
		if r.Outcome != Stored {
			gone[evs[i].ID] = true
		}
		gone[r.Replaced] = true
	}
	var held []*nostr.Event
	for _, ev := range evs {
		if !gone[ev.ID] {
			held = append(held, ev)
		}
	}
	return held
}

func TestQueryFilters(t *testing.T) {
	s, _ := openTemp(t)
	held := queryFixture(t, s)
	a0, a1, a2 := hex64("a0"), hex64("a1"), hex64("a2")
	ts := func(v int64) *nostr.Timestamp { x := nostr.Timestamp(v); return &x }

	cases := []struct {
		name      string
		f         nostr.Filter
		max       int
		wantEmpty bool
	}{
		{"all", nostr.Filter{}, 0, false},
		{"ids", nostr.Filter{IDs: []string{held[0].ID, held[7].ID, hex64("absent")}}, 0, false},
		{"authors", nostr.Filter{Authors: []string{a0, a2}}, 0, false},
		{"kinds", nostr.Filter{Kinds: []int{1, 10011}}, 0, false},
		{"tag one value", nostr.Filter{Tags: nostr.TagMap{"p": {a1}}}, 0, false},
		{"tag OR values", nostr.Filter{Tags: nostr.TagMap{"p": {a1, a2}}}, 0, false},
		{"tags AND keys", nostr.Filter{Tags: nostr.TagMap{"p": {a1, a2}, "s": {"x.com"}}}, 0, false},
		{"upper-case tag", nostr.Filter{Tags: nostr.TagMap{"I": {"upper"}}}, 0, false},
		{"unindexed letter", nostr.Filter{Tags: nostr.TagMap{"l": {"unindexed", "other"}}}, 0, false},
		{"unindexed and indexed letters", nostr.Filter{Tags: nostr.TagMap{"l": {"unindexed"}, "s": {"x.com"}}}, 0, false},
		{"unindexed letter and kind", nostr.Filter{Kinds: []int{1}, Tags: nostr.TagMap{"l": {"unindexed"}}, Limit: 4}, 0, false},
		{"since", nostr.Filter{Since: ts(1005)}, 0, false},
		{"until", nostr.Filter{Until: ts(1002)}, 0, false},
		{"since and until", nostr.Filter{Since: ts(1003), Until: ts(1004)}, 0, false},
		{"limit", nostr.Filter{Limit: 7}, 0, false},
		{"max caps limit", nostr.Filter{Limit: 20}, 5, false},
		{"limit under max", nostr.Filter{Limit: 4}, 50, false},
		{"max without limit", nostr.Filter{}, 9, false},
		{"combined", nostr.Filter{Authors: []string{a0, a1, a2}, Kinds: []int{1, 32009},
			Tags: nostr.TagMap{"s": {"x.com"}, "i": {"user:id:0", "user:id:1", "user:id:2"}}, Since: ts(1001), Until: ts(1008), Limit: 3}, 10, false},
		{"empty ids matches nothing", nostr.Filter{IDs: []string{}}, 0, true},
		{"empty tag values match nothing", nostr.Filter{Tags: nostr.TagMap{"p": {}}}, 0, true},
		{"limit zero", nostr.Filter{Limit: 0, LimitZero: true}, 0, true},
		{"no match", nostr.Filter{Authors: []string{hex64("nobody")}}, 0, true},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := ids(testutil.Matching(held, c.f, c.max))
			if (len(want) == 0) != c.wantEmpty {
				t.Fatalf("fixture gives %d expected events", len(want))
			}
			got, err := s.Query(ctx, c.f, c.max)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), want) {
				t.Fatalf("Query = %d events %v\nwant %d events %v", len(got), ids(got), len(want), want)
			}
			n, err := s.Count(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			all := c.f
			all.Limit, all.LimitZero = 0, false
			if wantN := len(testutil.Matching(held, all, 0)); n != int64(wantN) {
				t.Fatalf("Count = %d, want %d", n, wantN)
			}
		})
	}
}

func TestQueryNonLetterTagMatchesNothing(t *testing.T) {
	s, _ := openTemp(t)
	save(t, s, mkEvent(1, hex64("a"), 1, nostr.Tag{"alt", "x"}, nostr.Tag{"p", hex64("b")}))
	got, err := s.Query(context.Background(), nostr.Filter{Tags: nostr.TagMap{"alt": {"x"}}}, 0)
	if err != nil || len(got) != 0 {
		t.Fatalf("multi-letter tag key: %d events, err %v; only single-letter tags are indexed", len(got), err)
	}
}

func TestQueryOrderNewestFirstTiesByID(t *testing.T) {
	s, _ := openTemp(t)
	a := hex64("a")
	evs := []*nostr.Event{mkEvent(1, a, 5), mkEvent(1, a, 7), mkEvent(1, a, 7), mkEvent(1, a, 7), mkEvent(1, a, 6)}
	save(t, s, evs...)
	got, err := s.Query(context.Background(), nostr.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tied := sortedCopy([]string{evs[1].ID, evs[2].ID, evs[3].ID})
	want := append(tied, evs[4].ID, evs[0].ID)
	if !slices.Equal(ids(got), want) {
		t.Fatalf("order %v, want %v", ids(got), want)
	}
}

func TestScan(t *testing.T) {
	s, _ := openTemp(t)
	a := hex64("a")
	// More than one scan page of kind 1, interleaved with another kind.
	var notes []*nostr.Event
	var batch []*nostr.Event
	for i := 0; i < scanPageSize+150; i++ {
		ev := mkEvent(1, a, int64(i))
		notes = append(notes, ev)
		batch = append(batch, ev)
		if i%100 == 0 {
			batch = append(batch, mkEvent(7, a, int64(i)))
		}
	}
	save(t, s, batch...)
	ctx := context.Background()

	var seen []string
	if err := s.Scan(ctx, []int{1}, func(ev *nostr.Event) error {
		if ev.Kind != 1 {
			t.Fatalf("scanned kind %d", ev.Kind)
		}
		seen = append(seen, ev.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sortedCopy(seen), sortedCopy(ids(notes))) {
		t.Fatalf("scanned %d kind-1 events, want %d", len(seen), len(notes))
	}

	all := 0
	if err := s.Scan(ctx, nil, func(*nostr.Event) error { all++; return nil }); err != nil || all != len(batch) {
		t.Fatalf("scan of every kind saw %d (err %v), want %d", all, err, len(batch))
	}

	stop := errors.New("stop")
	calls := 0
	err := s.Scan(ctx, []int{7}, func(*nostr.Event) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("callback error: err %v after %d calls, want stop after 1", err, calls)
	}

	// The callback may write to the store while scanning.
	if err := s.Scan(ctx, []int{7}, func(ev *nostr.Event) error {
		_, err := s.SaveBatch([]*nostr.Event{mkEvent(9, a, int64(ev.CreatedAt))})
		return err
	}); err != nil {
		t.Fatalf("writing from the callback: %v", err)
	}
}

// The filters the engine and clients send must be answered from an index,
// never by scanning the events table.
func TestQueryPlansUseIndexes(t *testing.T) {
	s, _ := openTemp(t)
	a, b := hex64("a"), hex64("b")
	for _, c := range []struct {
		name string
		f    nostr.Filter
		uses string // the driving access path
	}{
		{"trust by authors", nostr.Filter{Kinds: []int{32009}, Authors: []string{a, b}}, "events_author_stamps (pubkey=? AND kind=?)"},
		{"ratings by authors", nostr.Filter{Kinds: []int{32014}, Authors: []string{a, b}, Tags: nostr.TagMap{"s": {"x.com"}}}, "events_author_stamps (pubkey=? AND kind=?)"},
		{"discovery", nostr.Filter{Kinds: []int{32009}, Tags: nostr.TagMap{"k": {"user:id"}, "i": {"user:id:1", "user:id:2"}}}, "INTEGER PRIMARY KEY (rowid=?)"},
		{"by subject", nostr.Filter{Kinds: []int{32009}, Tags: nostr.TagMap{"p": {a}}, Since: new(nostr.Timestamp)}, "INTEGER PRIMARY KEY (rowid=?)"},
		{"ids", nostr.Filter{IDs: []string{a}, Authors: []string{b}}, "sqlite_autoindex_events_1 (id=?)"},
		{"kinds since", nostr.Filter{Kinds: []int{10011}, Since: new(nostr.Timestamp)}, "events_kind_created (kind=? AND created_at>?)"},
	} {
		name, f := c.name, c.f
		q, args, ok := querySQL(eventColumns, f, 100)
		if !ok {
			t.Fatalf("%s: no query", name)
		}
		plan := queryPlan(t, s, q, args...)
		t.Logf("%s: %s", name, strings.Join(plan, " | "))
		if !strings.HasPrefix(plan[0], "SEARCH e USING ") || !strings.HasSuffix(plan[0], c.uses) {
			t.Errorf("%s is driven by %q, want %q", name, plan[0], c.uses)
		}
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN e") || strings.HasPrefix(step, "SCAN t") {
				t.Errorf("%s scans a table:\n%s", name, strings.Join(plan, "\n"))
			}
		}
	}
}

// The stamps a NIP-77 reconciliation reads for a batch of authors come from
// the author index alone, never from the events' rows (issue 26: those reads
// were most of a daily refresh with nothing new at 100,000 authors).
func TestAuthorStampsComeFromTheIndex(t *testing.T) {
	s, _ := openTemp(t)
	f := nostr.Filter{Kinds: []int{32009, 32014}, Authors: []string{hex64("a"), hex64("b")}}
	q, args, ok := selectSQL("e.created_at, e.id, e.pubkey", filterWhere(f), f, 100, "")
	if !ok {
		t.Fatal("no query")
	}
	plan := queryPlan(t, s, q, args...)
	if want := "SEARCH e USING COVERING INDEX events_author_stamps (pubkey=? AND kind=?)"; len(plan) != 1 || plan[0] != want {
		t.Fatalf("stamps are read by\n%s\nwant %s", strings.Join(plan, "\n"), want)
	}
}

// The tag index is keyed by a 64-bit hash; a colliding entry must not make an
// event match a tag it does not carry.
func TestTagHashCollisionIsFilteredOut(t *testing.T) {
	s, _ := openTemp(t)
	ev := mkEvent(1, hex64("a"), 1, nostr.Tag{"p", hex64("real")})
	save(t, s, ev)
	var rid int64
	if err := s.r.QueryRow(`SELECT rid FROM events WHERE id = ?`, ev.ID).Scan(&rid); err != nil {
		t.Fatal(err)
	}
	// Forge what a collision would look like: the hash of another value
	// pointing at this event.
	if _, err := s.w.Exec(`INSERT INTO event_tags (hash, rid) VALUES (?, ?)`, tagHash("p", hex64("other")), rid); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, f := range []nostr.Filter{
		{Tags: nostr.TagMap{"p": {hex64("other")}}},
		{Authors: []string{hex64("a")}, Tags: nostr.TagMap{"p": {hex64("other")}}},
	} {
		if got, err := s.Query(ctx, f, 0); err != nil || len(got) != 0 {
			t.Fatalf("forged index entry matched: %d events, err %v", len(got), err)
		}
		if n, err := s.Count(ctx, f); err != nil || n != 0 {
			t.Fatalf("forged index entry counted: %d, err %v", n, err)
		}
	}
	if got, err := s.Query(ctx, nostr.Filter{Tags: nostr.TagMap{"p": {hex64("real")}}}, 0); err != nil || len(got) != 1 {
		t.Fatalf("real tag: %d events, err %v", len(got), err)
	}
}

func TestScanWalksRowidRange(t *testing.T) {
	s, _ := openTemp(t)
	q, args, ok := scanSQL([]int{1, 2}, false)
	if !ok {
		t.Fatal("no scan query")
	}
	plan := queryPlan(t, s, q, append(args, 0, 10)...)
	if len(plan) != 1 || plan[0] != "SEARCH e USING INTEGER PRIMARY KEY (rowid>?)" {
		t.Fatalf("scan page plan: %v", plan)
	}
	// rare kinds are read through the kind index, sorted by rowid
	q, args, _ = scanSQL([]int{1, 2}, true)
	if plan := strings.Join(queryPlan(t, s, q, append(args, 0, 10)...), "; "); !strings.Contains(plan, "USING INDEX events_kind_created (kind=?)") {
		t.Fatalf("rare kinds' scan page plan: %s", plan)
	}
}

// Scan finds rare kinds through the index and common ones by walking the
// table, and gives the same events in the same order either way.
func TestScanRareAndCommonKinds(t *testing.T) {
	s, _ := openTemp(t)
	var want []string
	var evs []*nostr.Event
	for i := range 3 * scanPageSize {
		kind := 1
		if i%100 == 0 {
			kind = 1621
		}
		evs = append(evs, mkEvent(kind, hex64("author", i), int64(1_700_000_000+i)))
		if kind == 1621 {
			want = append(want, evs[i].ID)
		}
	}
	save(t, s, evs...)
	for _, kinds := range [][]int{{1621}, {1621, 1}} {
		var got []string
		if err := s.Scan(context.Background(), kinds, func(ev *nostr.Event) error {
			if ev.Kind == 1621 {
				got = append(got, ev.ID)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("scan of kinds %v found %d of the %d events of kind 1621, or in another order", kinds, len(got), len(want))
		}
	}
}

// queryPlan returns the detail lines of EXPLAIN QUERY PLAN for q.
func queryPlan(t *testing.T, s *Store, q string, args ...any) []string {
	t.Helper()
	rows, err := s.r.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatalf("explain %s: %v", q, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}

// A query longer than a page, with created_at ties across page boundaries
// and pages cut by bytes, is answered whole, in order, each event once, and
// within its limit.
func TestQueryPagesKeepOrderAndLimit(t *testing.T) {
	s, _ := openTemp(t)
	a := hex64("a")
	big := strings.Repeat("x", queryPageBytes/7) // a page holds 7 of these
	var evs []*nostr.Event
	for i := range 2*queryPageRows + 37 {
		content := fmt.Sprint(i)
		if i%50 < 3 {
			content = big + content
		}
		evs = append(evs, mkEventContent(content, 1, a, int64(1000+i/9), nostr.Tag{"t", "x"}))
	}
	save(t, s, evs...)
	want := slices.Clone(evs)
	slices.SortFunc(want, func(x, y *nostr.Event) int {
		return cmp.Or(cmp.Compare(y.CreatedAt, x.CreatedAt), strings.Compare(x.ID, y.ID))
	})
	for _, tc := range []struct {
		f   nostr.Filter
		max int
		n   int
	}{
		{nostr.Filter{}, 0, len(evs)},
		{nostr.Filter{Tags: nostr.TagMap{"t": {"x"}}}, 0, len(evs)},
		{nostr.Filter{}, queryPageRows + 3, queryPageRows + 3},
		{nostr.Filter{Limit: 20}, queryPageRows, 20},
	} {
		got, err := s.Query(context.Background(), tc.f, tc.max)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), ids(want[:tc.n])) {
			t.Errorf("%v max %d: got %d events, want the newest %d in order", tc.f, tc.max, len(got), tc.n)
		}
	}
}

// Expired events are left out of queries, counts and stamps, and the
// expirations table follows the events it names through slot replacement.
func TestExpiredEventsAreNotServed(t *testing.T) {
	s, _ := openTemp(t)
	a, now := hex64("a"), time.Now().Unix()
	expired := mkEvent(1, a, now-5, nostr.Tag{"expiration", strconv.FormatInt(now-1, 10)})
	later := mkEvent(1, a, now-4, nostr.Tag{"expiration", strconv.FormatInt(now+3600, 10)})
	plain := mkEvent(1, a, now-3)
	// a replaceable event that expired, then replaced by one that has not
	oldProfile := mkEvent(0, a, now-9, nostr.Tag{"expiration", strconv.FormatInt(now-1, 10)})
	newProfile := mkEvent(0, a, now-8)
	save(t, s, expired, later, plain, oldProfile, newProfile)
	ctx := context.Background()
	got, err := s.Query(ctx, nostr.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := sortedCopy([]string{later.ID, plain.ID, newProfile.ID}); !slices.Equal(sortedCopy(ids(got)), want) {
		t.Errorf("served %v, want %v", ids(got), want)
	}
	if n, err := s.Count(ctx, nostr.Filter{Kinds: []int{1}}); err != nil || n != 2 {
		t.Errorf("count %d %v, want 2", n, err)
	}
	if st, err := s.Stamps(ctx, nostr.Filter{Kinds: []int{1}}, 0); err != nil || len(st) != 2 {
		t.Errorf("stamps %v %v, want 2", st, err)
	}
	var rows int
	if err := s.r.QueryRow("SELECT count(*) FROM expirations").Scan(&rows); err != nil || rows != 2 {
		t.Errorf("expirations holds %d rows (%v), want 2: the replaced event's row goes with it", rows, err)
	}
}

// EachID reads the id index alone, a range per page, and gives every id
// once across pages.
func TestEachIDReadsTheIDIndex(t *testing.T) {
	s, _ := openTemp(t)
	plan := strings.Join(queryPlan(t, s, idPageSQL, "", 10), "; ")
	if !strings.Contains(plan, "USING COVERING INDEX") {
		t.Fatalf("id page plan: %s", plan)
	}
	var want []string
	for i := range 20 {
		ev := mkEvent(1, hex64("author", i), 1_700_000_000)
		save(t, s, ev)
		want = append(want, ev.ID)
	}
	slices.Sort(want)
	for _, page := range []int{7, 10, 20, 50} {
		var got []string
		if err := s.eachID(context.Background(), page, func(id string) { got = append(got, id) }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pages of %d: %d ids, want the %d held", page, len(got), len(want))
		}
	}
}
