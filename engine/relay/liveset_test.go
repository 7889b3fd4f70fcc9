package relay

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/internal/testutil"
)

// collector consumes a set's items: events and EOSEs by group label.
type collector struct {
	mu     sync.Mutex
	events map[any]int
	eosed  map[any]bool
}

func collect(set *LiveSet, conn *Conn) *collector {
	c := &collector{events: map[any]int{}, eosed: map[any]bool{}}
	go func() {
		for {
			select {
			case it := <-set.Items():
				c.mu.Lock()
				switch {
				case it.event != nil:
					c.events[it.label]++
				case it.eose:
					c.eosed[it.label] = true
				}
				c.mu.Unlock()
				it.done()
			case <-conn.done():
				return
			}
		}
	}()
	return c
}

// servedAll reports whether every label got its event and its EOSE.
func (c *collector) servedAll(labels int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range labels {
		if c.events[i] == 0 || !c.eosed[i] {
			return false
		}
	}
	return true
}

// eosedFor reports whether label reached EOSE.
func (c *collector) eosedFor(label any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eosed[label]
}

// authorGroups makes n groups of one filter each, one author per group,
// and one stored event per author.
func authorGroups(n int) ([]Group, []*nostr.Event) {
	groups := make([]Group, n)
	evs := make([]*nostr.Event, n)
	for i := range n {
		pk := fmt.Sprintf("%064x", i+1)
		groups[i] = Group{Label: i, Filters: nostr.Filters{{Kinds: []int{1}, Authors: []string{pk}}}}
		evs[i] = &nostr.Event{ID: fmt.Sprintf("%064x", 1000+i), PubKey: pk, Kind: 1, CreatedAt: 1_700_000_000}
	}
	return groups, evs
}

// TestLiveSetServesEveryFilterUnderSubscriptionLimit: a relay that allows 8
// subscriptions, says so nowhere and refuses the excess with only a NOTICE
// (strfry) still serves every filter: the refusal shows how many REQs it
// accepts, and the set repacks into fewer, fuller REQs within that at once,
// with no cool-down (the clock never moves). What is learned is an upper
// bound, not the figure: a NOTICE names no REQ, so the allowance drops to
// the most REQs open when one of those it ended was sent, less one; the
// set must hold no more REQs than the relay allows.
func TestLiveSetServesEveryFilterUnderSubscriptionLimit(t *testing.T) {
	const perReq, limit = 2, 8
	n := limit*perReq + 10 // 13 REQs at perReq: within our default allowance
	groups, evs := authorGroups(n)
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: limit}, evs...)
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	var refusalNotices atomic.Int64
	conn := dial(t, r.URL, Options{onNotice: func(msg string) {
		if msg == "ERROR: too many concurrent REQs" {
			refusalNotices.Add(1)
		}
	}})
	var cooled atomic.Bool
	set := newLiveSet(conn, liveOptions{clock: clock, filtersPerReq: perReq,
		onRefused: func(string, time.Time) { cooled.Store(true) }})
	got := collect(set, conn)
	if err := set.Add(context.Background(), groups); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "every filter served", func() bool { return got.servedAll(n) })
	if refusalNotices.Load() == 0 {
		t.Fatal("the relay refused none of the REQs: nothing was fitted")
	}
	allowed, known := conn.allowance()
	st := set.stats()
	if !known || allowed >= n/perReq || st.Reqs > min(limit, conn.liveBudget()) || st.Filters != n || !st.coolingUntil.IsZero() || cooled.Load() {
		t.Fatalf("after the refusal: allowance %d (known %v), set %+v, cooled down %v: want at most %d REQs carrying %d filters, no cool-down",
			allowed, known, st, cooled.Load(), conn.liveBudget(), n)
	}
}

// TestLiveSetStaysWithinTheRelaysAllowance: groups added one at a time, as
// repository sync's windows add them, never take more REQs than the
// relay's published max_subscriptions less one (left for paging): they are
// repacked into fuller REQs, and consolidated by the caller once a REQ
// would carry more than MaxLiveFilters. The relay refuses none and every
// group is served.
func TestLiveSetStaysWithinTheRelaysAllowance(t *testing.T) {
	const allowed = 3
	groups, evs := authorGroups(MaxLiveFilters + 1)
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: allowed, AdvertiseSubscriptions: true}, evs...)
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	conn := dial(t, r.URL, Options{})
	consolidated := Group{Label: "all", Filters: nostr.Filters{{Kinds: []int{1}}}}
	set := newLiveSet(conn, liveOptions{clock: clock,
		consolidate: func() []Group { return []Group{consolidated} }})
	got := collect(set, conn)
	ctx := context.Background()
	for i, g := range groups[:MaxLiveFilters] {
		if err := set.Add(ctx, []Group{g}); err != nil {
			t.Fatal(err)
		}
		if st := set.stats(); st.Reqs > allowed-1 {
			t.Fatalf("after %d groups %d REQs, want at most %d", i+1, st.Reqs, allowed-1)
		}
	}
	testutil.Eventually(t, "every group served", func() bool { return got.servedAll(MaxLiveFilters) })
	if st := set.stats(); st.groups != MaxLiveFilters || st.Filters != MaxLiveFilters {
		t.Fatalf("before the consolidation %+v, want every group kept", st)
	}
	if err := set.Add(ctx, groups[MaxLiveFilters:]); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "consolidated REQ served", func() bool { return got.eosedFor("all") })
	if st := set.stats(); st.groups != 1 || st.Filters != 1 || st.Reqs != 1 {
		t.Fatalf("after consolidation %+v, want the one consolidated group", st)
	}
	if n := r.RefusedReqs(); n != 0 {
		t.Fatalf("the relay refused %d REQs", n)
	}
}

// TestLiveSetReopensWhatTheRelayClosed: a subscription the relay CLOSED (not
// for load) is asked again after the backoff, not before, and then serves
// new events; a second close in a row waits longer.
func TestLiveSetReopensWhatTheRelayClosed(t *testing.T) {
	groups, evs := authorGroups(1)
	r := faultrelay.StartForTest(t, faultrelay.Mode{}, evs...)
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	conn := dial(t, r.URL, Options{})
	var closes, reopens atomic.Int64
	set := newLiveSet(conn, liveOptions{clock: clock,
		onClosed: func(string) { closes.Add(1) }, onReopened: func() { reopens.Add(1) }})
	got := collect(set, conn)
	if err := set.Add(context.Background(), groups); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "first EOSE", func() bool { return got.eosedFor(0) })
	for i, wait := range []time.Duration{600 * time.Millisecond, 1200 * time.Millisecond} {
		r.CloseSubscriptions("error: relay restarting")
		testutil.Eventually(t, "the CLOSED", func() bool { return closes.Load() == int64(i+1) })
		clock.Advance(wait / 2) // below the backoff's lowest value (−20%)
		time.Sleep(50 * time.Millisecond)
		if n := r.Reqs(); n != int64(i+1) {
			t.Fatalf("close %d: %d REQs before the backoff ended, want %d", i+1, n, i+1)
		}
		clock.Advance(wait)
		testutil.Eventually(t, "the reopened REQ", func() bool { return r.Reqs() == int64(i+2) && reopens.Load() == int64(i+1) })
	}
	pk := evs[0].PubKey
	r.Publish(&nostr.Event{ID: fmt.Sprintf("%064x", 9999), PubKey: pk, Kind: 1, CreatedAt: 1_700_000_100})
	testutil.Eventually(t, "the live event after the reopen", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		return got.events[0] >= 4 // the first answer, two re-reads of the stored event, the new one
	})
	if st := set.stats(); st.Reqs != 1 || st.groups != 1 {
		t.Fatalf("after reopening %+v, want the one group on one REQ", st)
	}
}

// Live REQs stay within the relay's max_message_length, however many
// filters a REQ could carry: a relay that ends the connection on a larger
// frame (strfry) serves every group, on one connection.
func TestLiveSetREQsFitTheRelaysMaxMessageLength(t *testing.T) {
	const groups, authors = 12, 100 // 100 authors: about 6.7 KB a filter
	var gs []Group
	var evs []*nostr.Event
	for g := range groups {
		var pks []string
		for a := range authors {
			pks = append(pks, fmt.Sprintf("%064x", g*authors+a+1))
		}
		gs = append(gs, Group{Label: g, Filters: nostr.Filters{{Kinds: []int{1}, Authors: pks}}})
		evs = append(evs, &nostr.Event{ID: fmt.Sprintf("%064x", 100000+g), PubKey: pks[0], Kind: 1, CreatedAt: 1_700_000_000})
	}
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxMessageLength: 16 << 10}, evs...)
	conn := dial(t, r.URL, Options{})
	set := newLiveSet(conn, liveOptions{})
	got := collect(set, conn)
	if err := set.Add(context.Background(), gs); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "every group served", func() bool { return got.servedAll(groups) || conn.dropped() })
	if conn.dropped() || r.Conns() != 1 {
		t.Fatalf("connection dropped (%v) or %d connections: a REQ passed the relay's 16 KiB", conn.err(), r.Conns())
	}
	if st := set.stats(); st.Reqs < groups/2 {
		t.Fatalf("%d REQs for %d filters of 6.7 KB: want at most two filters a REQ", st.Reqs, groups)
	}
}

// A refusing NOTICE names no REQ. One read after we closed its REQ (a
// repack closes every REQ and sends fewer) must not be taken for a refusal
// of the REQs sent in their place, within the relay's allowance: they are
// answered, and the allowance stays (CI runs of repository sync and of the
// live set cooled down for a minute, or learned an allowance of one, when
// the repack's CLOSEs and REQs went out before the NOTICE was read).
func TestNoticeForAClosedReqIsNotARefusalOfTheNext(t *testing.T) {
	groups, evs := authorGroups(3)
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 2}, evs...)
	noticed, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	conn := dial(t, r.URL, Options{onNotice: func(msg string) {
		if msg != "ERROR: too many concurrent REQs" {
			return
		}
		once.Do(func() {
			close(noticed)
			<-release // the read loop waits: what the test writes meanwhile goes before the NOTICE is read
		})
	}})
	type answer struct {
		eose   bool
		reason string
	}
	open := func(g Group) (*Sub, chan answer) {
		t.Helper()
		ch := make(chan answer, 1)
		s, err := conn.Subscribe(g.Filters, Handler{
			Event:  func(*nostr.Event) {},
			EOSE:   func() { ch <- answer{eose: true} },
			closed: func(reason string) { ch <- answer{reason: reason} },
		})
		if err != nil {
			t.Fatal(err)
		}
		return s, ch
	}
	first, firstAnswer := open(groups[0])
	second, secondAnswer := open(groups[1])
	for _, ch := range []chan answer{firstAnswer, secondAnswer} {
		if a := <-ch; !a.eose {
			t.Fatalf("one of the two REQs the relay allows was refused: %q", a.reason)
		}
	}
	third, _ := open(groups[2]) // one too many: the relay sends a NOTICE
	<-noticed
	// the repack: every REQ closed, then two sent, as many as the relay allows
	for _, s := range []*Sub{first, second, third} {
		s.close()
	}
	_, againFirst := open(groups[0])
	_, againSecond := open(groups[1])
	close(release)
	for _, ch := range []chan answer{againFirst, againSecond} {
		if a := <-ch; !a.eose {
			t.Fatalf("a REQ sent after the repack, within the relay's allowance, ended as refused (%q): the NOTICE was the closed REQ's", a.reason)
		}
	}
	if n, known := conn.allowance(); known && n < 2 {
		t.Fatalf("allowance lowered to %d by the NOTICE for a closed REQ, the relay allows 2", n)
	}
}

// TestNoticeAfterAnUnansweredClosedReqRefusesTheWaitingOne: a REQ we closed
// before its answer may never get one (strfry drops a query closed while it
// runs). The relay answers in order, so the EOSE of a later REQ shows that
// none will come; a refusing NOTICE after that is for a REQ still waiting,
// which ends as refused instead of waiting for good.
func TestNoticeAfterAnUnansweredClosedReqRefusesTheWaitingOne(t *testing.T) {
	groups, evs := authorGroups(4)
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 2, StallFirst: 1}, evs...)
	conn := dial(t, r.URL, Options{})
	answers := make([]chan string, len(groups)) // "eose", or the reason it closed
	subs := make([]*Sub, len(groups))
	for i, g := range groups {
		answers[i] = make(chan string, 1)
		s, err := conn.Subscribe(g.Filters, Handler{
			Event:  func(*nostr.Event) {},
			EOSE:   func() { answers[i] <- "eose" },
			closed: func(reason string) { answers[i] <- reason },
		})
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = s
		if i == 0 {
			s.close() // the relay never answers it
		}
	}
	for i := 1; i <= 2; i++ {
		if a := <-answers[i]; a != "eose" {
			t.Fatalf("REQ %d of the two the relay allows: %q", i, a)
		}
	}
	select {
	case a := <-answers[3]:
		if !strings.Contains(a, "too many concurrent REQs") {
			t.Fatalf("the third open REQ ended with %q, want the relay's refusal", a)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the refused REQ still waits: its NOTICE was taken for the answer to the closed REQ the relay never answered")
	}
}
