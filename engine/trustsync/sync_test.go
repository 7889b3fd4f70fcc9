package trustsync

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// wot is a deterministic web of trust on a relay, with the events a pass
// must store (want) and must not (the rest).
type wot struct {
	root, a, b, c, g, h person
	all                 []*nostr.Event
	want                map[string]bool
}

func buildWoT(now int64) *wot {
	w := &wot{want: map[string]bool{}}
	w.root, w.a, w.b, w.c, w.g, w.h = newPerson("root"), newPerson("a"), newPerson("b"), newPerson("c"), newPerson("g"), newPerson("h")
	d, n, e, f := newPerson("d"), newPerson("n"), newPerson("e"), newPerson("f")
	out1, out2, out3 := newPerson("outsider1"), newPerson("outsider2"), newPerson("outsider3")
	day := int64(86400)
	keep := func(evs ...*nostr.Event) {
		for _, ev := range evs {
			w.all = append(w.all, ev)
			w.want[ev.ID] = true
		}
	}
	skip := func(evs ...*nostr.Event) { w.all = append(w.all, evs...) }

	keep(
		// level 0 -> 1: root trusts a and b, distrusts d, neutral on n.
		w.root.trust(w.a, "1", now-9*day), w.root.trust(w.b, "1", now-9*day),
		w.root.trust(d, "-1", now-8*day), w.root.trust(n, "0", now-8*day),
		// b trusted e, then deleted it: the relay holds the delete only.
		w.b.trust(e, "", now-6*day),
		// a -> c (level 2); c -> f expired; c -> g (level 3).
		w.a.trust(w.c, "1", now-7*day),
		w.c.trust(f, "1", now-5*day, nostr.Tag{"y", fmt.Sprint(now - 4*day)}),
		w.c.trust(w.g, "1", now-5*day),
		// a trusts an X account; discovery fetches statements about it from anyone.
		w.a.sign(32009, now-3*day, nostr.Tags{{"d", "x1"}, {"i", "user:id:123", "", w.g.pk}, {"k", "user:id"}, {"v", "1"}}),
		out3.sign(32009, now-3*day, nostr.Tags{{"d", "x2"}, {"i", "user:id:123"}, {"k", "user:id"}, {"v", "-1"}}),
		// ratings and claims of frontier authors.
		w.a.sign(32014, now-2*day, nostr.Tags{{"d", "r1"}, {"p", w.b.pk}, {"score", "80"}, {"s", "x.com"}}),
		w.g.sign(10011, now-2*day, nostr.Tags{{"i", "twitter_id:123", "proof"}}),
		// a rating by a frontier author in another scope is fetched too: the
		// ratings filter names no scope (SPEC §6.2), ingest drops it
		w.a.sign(32014, now-2*day, nostr.Tags{{"d", "r3"}, {"p", w.c.pk}, {"score", "50"}, {"s", "other.site"}}),
	)
	skip(
		// outsiders: trust, ratings and claims that nobody on the frontier reaches.
		out1.trust(w.root, "1", now-9*day), out1.trust(out2, "1", now-9*day),
		out2.sign(32014, now-2*day, nostr.Tags{{"d", "r2"}, {"p", w.a.pk}, {"score", "10"}, {"s", "x.com"}}),
		out2.sign(10011, now-2*day, nostr.Tags{{"i", "twitter_id:9", "proof"}}),
		// e and f are off the frontier (deleted / expired edges).
		e.trust(out1, "1", now-day), f.trust(out1, "1", now-day),
	)
	return w
}

type rig struct {
	sink     *memSink
	frontier *bfsFrontier
	store    *store.Store
	runner   *Runner
}

func newRig(t *testing.T, strategy string, root person, relays ...string) *rig {
	limits := settings.DefaultLimits()
	limits.PageTimeoutSeconds = 2
	return newRigWith(t, limits, strategy, root, relays...)
}

// newRigWith is newRig with the given limits.
func newRigWith(t *testing.T, limits settings.Limits, strategy string, root person, relays ...string) *rig {
	st := openStore(t, relays...)
	sink := newMemSink()
	fr := newFrontier(sink, root.pk)
	set := newSettings(strategy)
	set.Limits = limits
	r := New(Config{Store: st, Sink: sink, Frontier: fr, Settings: set})
	return &rig{sink: sink, frontier: fr, store: st, runner: r}
}

// setPageTimeout changes the page timeout as the engine does on a settings
// change.
func (rg *rig) setPageTimeout(seconds int) {
	changeSettings(rg.runner, func(s *settings.Settings) { s.Limits.PageTimeoutSeconds = seconds })
}

// newWoTRig is a rig of strategy rooted at buildWoT's root, over a fault
// relay holding its events.
func newWoTRig(t *testing.T, strategy string) (*wot, *faultrelay.Relay, *rig) {
	w := buildWoT(time.Now().Unix())
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	return w, relay, newRig(t, strategy, w.root, relay.URL)
}

// run runs the runner until the test ends.
func (rg *rig) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rg.runner.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// runLive runs the runner until the test ends and waits for its one relay
// to be live.
func (rg *rig) runLive(t *testing.T) {
	rg.run(t)
	testutil.EventuallyWithin(t, 5*time.Second, "live state", rg.live)
}

func (rg *rig) live() bool {
	st := rg.runner.Status()
	return len(st.Relays) == 1 && st.Relays[0].State == status.StateLive
}

func TestPassStoresExactlyTheFrontiersEvents(t *testing.T) {
	now := time.Now().Unix()
	w := buildWoT(now)
	relay := faultrelay.StartForTest(t, faultrelay.Mode{CapLimit: 500, AdvertiseCap: true}, w.all...)
	rg := newRig(t, settings.FrontierInterval, w.root, relay.URL)
	rg.sink.persist = rg.store // what is held, for the second pass's reconciliation

	cov, err := rg.runner.RunOnce(context.Background())
	if err != nil || cov.State != status.StateComplete {
		t.Fatalf("coverage %+v err %v, want complete", cov, err)
	}
	wantAuthors := []string{w.root.pk, w.a.pk, w.b.pk, w.c.pk, w.g.pk}
	slices.Sort(wantAuthors)
	if got := rg.frontier.Authors(); !slices.Equal(got, wantAuthors) {
		t.Fatalf("frontier %d authors, want %d", len(got), len(wantAuthors))
	}
	got := rg.sink.ids()
	for _, id := range got {
		if !w.want[id] {
			t.Errorf("stored %s, which is not the frontier's", id)
		}
	}
	if len(got) != len(w.want) {
		t.Fatalf("stored %d events, want %d", len(got), len(w.want))
	}
	rg.frontier.mu.Lock()
	fetched := slices.Sorted(slices.Values(rg.frontier.claimsFetched))
	rg.frontier.mu.Unlock()
	if !slices.Equal(fetched, wantAuthors) {
		t.Fatalf("claims reported fetched for %d pubkeys, want the %d candidates", len(fetched), len(wantAuthors))
	}

	// Second pass: only what changed crosses the wire. a trusts h (a new
	// author with one event) and rates again; nothing else is new.
	later := now + 5
	newEvents := []*nostr.Event{
		w.a.trust(w.h, "1", later),
		w.a.sign(32014, later, nostr.Tags{{"d", "r4"}, {"p", w.c.pk}, {"score", "70"}, {"s", "x.com"}}),
		w.h.sign(32009, later, nostr.Tags{{"d", "h1"}, {"p", w.a.pk}, {"v", "0"}}),
	}
	firstSent := relay.EventsSent()
	relay.Publish(newEvents...)
	relay.ResetCounters()
	cov, err = rg.runner.RunOnce(context.Background())
	if err != nil || cov.State != status.StateComplete {
		t.Fatalf("second pass coverage %+v err %v", cov, err)
	}
	for _, ev := range newEvents {
		if !rg.sink.has(ev.ID) {
			t.Fatalf("second pass missed %s", ev.ID)
		}
	}
	// The authors fetched before are asked with one NIP-77 window probe per
	// family (issue 26): what the relay has of the family's kinds since they
	// were checked. It sends the new events only: a's two (fetched by id, one
	// REQ each family) and h's, twice: the trust probe leaves h's statement
	// (h is no key yet) and h's own first fetch, paged once a's statement
	// brought h in, sends it again. REQs: trust (the window's ids, h),
	// claims (h), ratings (the window's ids, h).
	if sent := relay.EventsSent(); sent != int64(len(newEvents))+1 || firstSent < 10 {
		t.Fatalf("second pass received %d events, want the %d new ones and h's again (the first: %d)", sent, len(newEvents), firstSent)
	}
	if reqs := relay.Reqs(); reqs != 5 {
		t.Fatalf("second pass sent %d REQs, want 5", reqs)
	}
}

func TestMidPassFailureKeepsCursors(t *testing.T) {
	now := time.Now().Unix()
	w := buildWoT(now)
	good := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	bad := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	rg := newRig(t, settings.FrontierInterval, w.root, good.URL, bad.URL)
	if cov, err := rg.runner.RunOnce(context.Background()); err != nil || cov.State != status.StateComplete {
		t.Fatalf("first pass %+v %v", cov, err)
	}
	authors := rg.frontier.Authors()
	before, err := rg.store.Cursors(bad.URL, "trust", authors)
	if err != nil || len(before) != len(authors) {
		t.Fatalf("cursors after first pass: %d, err %v", len(before), err)
	}

	// Pass two: bad drops the connection in the middle of its first page.
	newer := w.a.trust(w.h, "1", now+5)
	good.Publish(newer)
	bad.Publish(newer)
	bad.SetMode(faultrelay.Mode{DropAfter: 1})
	time.Sleep(1100 * time.Millisecond) // cursors are in seconds: let "now" move
	cov, err := rg.runner.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := "relay-failed:" + bad.URL
	if cov.State != status.StatePartial || !slices.Equal(cov.Reasons, []string{want}) {
		t.Fatalf("coverage %+v, want partial [%s]", cov, want)
	}
	after, _ := rg.store.Cursors(bad.URL, "trust", authors)
	for _, a := range authors {
		if after[a].LastSeenCreatedAt != before[a].LastSeenCreatedAt || after[a].LastEoseAt != before[a].LastEoseAt {
			t.Fatalf("failed relay's cursor moved: %+v -> %+v", before[a], after[a])
		}
		if after[a].Attempts != 1 || after[a].NextRetryAt <= now || after[a].LastError == "" {
			t.Fatalf("retry state not recorded: %+v", after[a])
		}
	}
	goodAfter, _ := rg.store.Cursors(good.URL, "trust", authors)
	for _, a := range authors {
		if goodAfter[a].LastEoseAt <= before[a].LastEoseAt-1 || goodAfter[a].Attempts != 0 {
			t.Fatalf("healthy relay's cursor did not advance: %+v", goodAfter[a])
		}
	}
	if !rg.sink.has(newer.ID) {
		t.Fatal("the healthy relay's new event was not stored")
	}
	h, _, _ := rg.store.RelayHealth(health.ProfileTrust, bad.URL)
	if h.State != status.HealthBackoff || h.ConsecutiveFailures != 1 {
		t.Fatalf("failed relay health %+v, want backoff after one failure", h)
	}
}

func TestFrontierContinuousDeliversNewEvents(t *testing.T) {
	now := time.Now().Unix()
	w := buildWoT(now)
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	rg := newRig(t, settings.FrontierContinuous, w.root, relay.URL)
	rg.runner.cfg.Resubscribe = 100 * time.Millisecond
	rg.runLive(t)

	// A new event by a frontier author arrives live.
	ev := w.g.sign(32009, time.Now().Unix(), nostr.Tags{{"d", "live"}, {"p", w.b.pk}, {"v", "1"}})
	start := time.Now()
	relay.Publish(ev)
	testutil.EventuallyWithin(t, 2*time.Second, "live delivery", func() bool { return rg.sink.has(ev.ID) })
	t.Logf("live delivery took %v", time.Since(start))

	// The frontier grows (c trusts h): h is caught up and followed.
	hOld := w.h.sign(32009, now-100, nostr.Tags{{"d", "h-old"}, {"p", w.a.pk}, {"v", "0"}})
	relay.Publish(hOld, w.c.trust(w.h, "1", time.Now().Unix()))
	testutil.EventuallyWithin(t, 3*time.Second, "catch-up of a new frontier author", func() bool { return rg.sink.has(hOld.ID) })
	hNew := w.h.sign(32009, time.Now().Unix(), nostr.Tags{{"d", "h-new"}, {"p", w.b.pk}, {"v", "1"}})
	relay.Publish(hNew)
	testutil.EventuallyWithin(t, 2*time.Second, "live delivery from a new frontier author", func() bool { return rg.sink.has(hNew.ID) })

	// Back-pressure: a flood beyond the queue is recovered from the cursors.
	var flood []*nostr.Event
	for i := range 400 {
		flood = append(flood, w.a.sign(32014, time.Now().Unix(), nostr.Tags{{"d", fmt.Sprint("f", i)}, {"p", w.b.pk}, {"score", "1"}, {"s", "x.com"}}))
	}
	rg.sink.delay.Store(int64(20 * time.Millisecond))
	relay.Publish(flood...)
	time.Sleep(100 * time.Millisecond)
	rg.sink.delay.Store(0)
	testutil.EventuallyWithin(t, 5*time.Second, "gap refill after back-pressure", func() bool {
		for _, ev := range flood {
			if !rg.sink.has(ev.ID) {
				return false
			}
		}
		return true
	})
	m := rg.runner.Metrics().Relays[0]
	if m.GapEvents == 0 || m.BySource[SourceLive] == 0 {
		t.Fatalf("metrics %+v: want live events and a back-pressure gap refill", m)
	}
}

func TestPassReportsProgressPerRelay(t *testing.T) {
	now := time.Now().Unix()
	w := buildWoT(now)
	relay := faultrelay.StartForTest(t, faultrelay.Mode{CapLimit: 500, AdvertiseCap: true}, w.all...)
	rg := newRig(t, settings.FrontierInterval, w.root, relay.URL)

	// read the status while the pass stores its batches
	var mu sync.Mutex
	var seen []status.Progress
	recompute := rg.sink.afterIngest
	rg.sink.afterIngest = func() {
		for _, r := range rg.runner.Status().Relays {
			if r.Progress != nil {
				mu.Lock()
				seen = append(seen, *r.Progress)
				mu.Unlock()
			}
		}
		recompute()
	}
	if _, err := rg.runner.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("no per-relay progress was visible during the pass")
	}
	for _, p := range seen {
		if p.Pass == "" || p.Total <= 0 || p.Done > p.Total {
			t.Fatalf("relay progress %+v: want a family with done ≤ total > 0", p)
		}
	}
	if p := rg.runner.Status().Progress; p != (status.Progress{}) {
		t.Fatalf("pass progress %+v still shown after the pass", p)
	}
	for _, r := range rg.runner.Status().Relays {
		if r.Progress != nil {
			t.Fatalf("relay %s still shows progress %+v after the pass", r.URL, *r.Progress)
		}
	}
}
