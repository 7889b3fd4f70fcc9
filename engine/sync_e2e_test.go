package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// wot is a deterministic web of trust published on a remote relay.
type wot struct {
	root, a, b, c, distrusted, neutral, deleted, expired, outsider fixture.Author
	events                                                         []*nostr.Event
	frontier                                                       []string // hex, what a full pass must reach
}

func buildWoT(now int64) wot {
	w := wot{
		root: fixture.NewAuthor(100), a: fixture.NewAuthor(101), b: fixture.NewAuthor(102), c: fixture.NewAuthor(103),
		distrusted: fixture.NewAuthor(104), neutral: fixture.NewAuthor(105), deleted: fixture.NewAuthor(106),
		expired: fixture.NewAuthor(107), outsider: fixture.NewAuthor(108),
	}
	bNpub, _ := validation.EncodeNpub(w.b.Pubkey)
	t := now - 3600
	w.events = []*nostr.Event{
		w.root.Trust(fixture.P(w.a.Pubkey), "1", t),
		w.a.Trust(fixture.P(w.b.Pubkey), "1", t),
		w.b.Trust(fixture.P(w.c.Pubkey), "1", t, fixture.Scopes("x.com")),
		w.a.Trust(fixture.P(w.distrusted.Pubkey), "-1", t),
		w.a.Trust(fixture.P(w.neutral.Pubkey), "0", t),
		// root trusted deleted once, then deleted the statement: the delete is the winner
		w.root.Trust(fixture.P(w.deleted.Pubkey), "", t+10),
		w.root.Trust(fixture.P(w.expired.Pubkey), "1", t, fixture.Window(0, now-60)),
		w.c.Trust(fixture.XUser("4242", bNpub), "1", t, fixture.Scopes("x.com")),
		w.b.Claims("bob", "4242", t),
		w.a.Rating(fixture.XUser("4242"), "90", t),
		w.c.Rating(fixture.XUser("4242"), "40", t, fixture.Context("identity")),
		// authors outside the frontier publish too; none of this may be fetched
		w.distrusted.Trust(fixture.P(w.outsider.Pubkey), "1", t),
		w.neutral.Trust(fixture.P(w.outsider.Pubkey), "1", t),
		w.deleted.Trust(fixture.P(w.outsider.Pubkey), "1", t),
		w.expired.Trust(fixture.P(w.outsider.Pubkey), "1", t),
		w.outsider.Trust(fixture.P(w.root.Pubkey), "1", t),
		w.outsider.Rating(fixture.XUser("4242"), "10", t),
		w.outsider.Claims("out", "9", t),
	}
	w.frontier = []string{w.root.Pubkey, w.a.Pubkey, w.b.Pubkey, w.c.Pubkey}
	slices.Sort(w.frontier)
	return w
}

// wanted is what a full pass must store: every event of a frontier author.
func (w wot) wanted() []string {
	var ids []string
	for _, ev := range w.events {
		if slices.Contains(w.frontier, ev.PubKey) {
			ids = append(ids, ev.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// startRemote runs a second instance of our own server as a well-behaved
// remote relay holding the fixture.
func startRemote(t *testing.T, evs []*nostr.Event) string {
	t.Helper()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	for _, ev := range evs {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("remote refused fixture event: %s", msg)
		}
	}
	return url
}

// openFollowing opens an engine rooted at root with remote as its relay,
// closed when the test ends.
func openFollowing(t *testing.T, root, remote string) *Engine {
	t.Helper()
	eng := openQuiet(t, t.TempDir())
	t.Cleanup(func() { _ = eng.Close() })
	follow(t, eng, root, remote)
	return eng
}

// follow roots eng at root with remote as its relay.
func follow(t *testing.T, eng *Engine, root, remote string) {
	t.Helper()
	for _, err := range []error{eng.Modify(settings.AddRoot(root)), eng.Modify(settings.AddRelay(remote))} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// syncPasses runs n manual sync passes.
func syncPasses(t *testing.T, eng *Engine, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range n {
		if _, err := eng.SyncOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func storedIDs(t *testing.T, eng *Engine) []string {
	t.Helper()
	evs, err := eng.store.Query(context.Background(), nostr.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID
	}
	slices.Sort(ids)
	return ids
}

func TestSyncOnceAgainstOurOwnServerAsRemote(t *testing.T) {
	t.Parallel()
	w := buildWoT(time.Now().Unix())
	remote := startRemote(t, w.events)

	// an engine that does not serve: only the passes this test runs, as with
	// `dtp-personal sync --once`
	data := t.TempDir()
	eng := openQuiet(t, data)
	defer func() { eng.Close() }()
	follow(t, eng, w.root.Pubkey, remote)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cov, err := eng.SyncOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cov.State != status.StateComplete {
		t.Fatalf("coverage %+v, want complete", cov)
	}
	if got, want := storedIDs(t, eng), w.wanted(); !slices.Equal(got, want) {
		t.Fatalf("stored %d events, want exactly the frontier's %d", len(got), len(want))
	}
	st := eng.Status()
	if st.Frontier.Size != len(w.frontier) {
		t.Fatalf("frontier size %d, want %d", st.Frontier.Size, len(w.frontier))
	}
	if st.Coverage.State != status.StateComplete {
		t.Fatalf("status coverage %+v after a complete pass", st.Coverage)
	}
	// the X account is bound through b's claim: c's statement about it is evidence
	a, err := eng.Resolve(ctx, Query{Subject: "user:id:4242"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != "trusted" || a.Ratings.Count != 1 || a.Coverage.State != status.StateComplete {
		t.Fatalf("answer %s, %d ratings, coverage %+v", a.Verdict, a.Ratings.Count, a.Coverage)
	}

	// small caps: the same pass is partial, and says why and by how much
	if err := eng.Modify(settings.SetLimits(withTotalAuthors(eng.Settings().Limits, 2))); err != nil {
		t.Fatal(err)
	}
	eng.trust.frontier.Recompute()
	cov, err = eng.SyncOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cov.State != status.StatePartial || !slices.Contains(cov.Reasons, "frontier-truncated") && !slices.Contains(eng.Status().Coverage.Reasons, "frontier-truncated") {
		t.Fatalf("capped pass coverage %+v, want partial with frontier-truncated", cov)
	}
	tr := eng.Status().Frontier.Truncation
	// root and a are admitted; b is found and cut (c is never reached)
	if i := slices.IndexFunc(tr, func(x status.Truncation) bool { return x.Reason == "maxTotalAuthors" }); i < 0 || tr[i].Cut != 1 {
		t.Fatalf("truncation %+v, want maxTotalAuthors cutting 1 author", tr)
	}

	// the outcome survives a restart: no "never-synced" for a synced store
	lastSync := eng.Status().LastSync
	eng.Close()
	eng = openQuiet(t, data)
	st = eng.Status()
	if st.LastSync != lastSync || lastSync == 0 || slices.Contains(st.Coverage.Reasons, "never-synced") ||
		!slices.Contains(st.Coverage.Reasons, "frontier-truncated") {
		t.Fatalf("after restart: lastSync %d (was %d), coverage %+v", st.LastSync, lastSync, st.Coverage)
	}
}

func withTotalAuthors(l settings.Limits, n int) settings.Limits {
	l.MaxTotalAuthors = n
	return l
}

// TestGlobalContinuousFollowsEveryTrustEvent: under "Subscribe all" the
// engine keeps events of authors outside any frontier, as they are published.
func TestGlobalContinuousFollowsEveryTrustEvent(t *testing.T) {
	t.Parallel()
	w := buildWoT(time.Now().Unix())
	remote := startRemote(t, w.events[:3])
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(settings.AddRelay(remote)); err != nil {
		t.Fatal(err)
	}
	if err := eng.Modify(settings.SetStrategy(settings.GlobalContinuous)); err != nil {
		t.Fatal(err)
	}
	stranger := fixture.NewAuthor(999) // no root, no frontier: only a global subscription sees it
	rc := dialRaw(t, remote)
	for _, ev := range []*nostr.Event{
		stranger.Trust(fixture.P(w.root.Pubkey), "1", time.Now().Unix()),
		stranger.Rating(fixture.XUser("5"), "20", time.Now().Unix()),
		stranger.Claims("stranger", "5", time.Now().Unix()),
	} {
		if ok, msg := rc.push(ev); !ok {
			t.Fatal(msg)
		}
		testutil.Eventually(t, "a stranger's kind "+fmt.Sprint(ev.Kind)+" event arrives", func() bool {
			held, _ := eng.store.Has(ev.ID)
			return held
		})
	}
	if st := eng.Status(); st.Strategy != settings.GlobalContinuous {
		t.Fatalf("strategy %s", st.Strategy)
	}
}

// A relay's row counts the events fetched from it and, of those, the ones
// that were new to us (issue 21 item 8): an event already held (pushed
// before the pass) is not stored again (here the first pass reconciles over
// NIP-77 and does not even fetch it). The figures are kept with the relay's
// health, so another process's status shows them.
func TestRelayRowCountsEventsStoredBesideReceived(t *testing.T) {
	t.Parallel()
	w := buildWoT(time.Now().Unix())
	remote := startRemote(t, w.events)
	data := t.TempDir()
	eng := openQuiet(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	held := w.events[0] // the root's first statement, pushed before the pass
	if r, err := eng.Submit(ctx, held, "test"); err != nil || !r.OK() {
		t.Fatalf("push: %v %+v", err, r)
	}
	if err := eng.Modify(func(s *settings.Settings) error {
		return errors.Join(settings.AddRoot(w.root.Pubkey)(s), settings.AddRelay(remote)(s))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	wanted := len(w.wanted())
	check := func(st status.Snapshot) {
		t.Helper()
		if len(st.Relays) != 1 || st.Relays[0].EventsStored != int64(wanted-1) || st.Relays[0].EventsFetched < st.Relays[0].EventsStored {
			t.Fatalf("relay rows %+v: want exactly %d stored (one was held), at least as many received", st.Relays, wanted-1)
		}
	}
	check(eng.Status())
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	again := openQuiet(t, data)
	defer again.Close()
	check(again.Status())
}

// With Options.SyncAfter the server answers at once but the sync loops wait
// until it is closed; the status shows the strategy that will run meanwhile.
func TestSyncWaitsForSyncAfterWhileTheServerAnswers(t *testing.T) {
	t.Parallel()
	w := buildWoT(time.Now().Unix())
	remote := startRemote(t, w.events)
	gate := make(chan struct{})
	eng, url := startEngine(t, Options{SyncAfter: gate})
	follow(t, eng, w.root.Pubkey, remote)
	own := fixture.NewAuthor(109).Trust(fixture.P(w.a.Pubkey), "1", time.Now().Unix())
	if ok, msg := dialRaw(t, url).push(own); !ok {
		t.Fatalf("push while the sync waits: %s", msg)
	}
	if st := eng.Status(); st.Strategy != eng.Settings().Strategy || st.State != status.StateIdle {
		t.Fatalf("status strategy %q state %s while the sync waits, want %q idle", st.Strategy, st.State, eng.Settings().Strategy)
	}
	time.Sleep(300 * time.Millisecond) // a pass would have fetched the fixture by now
	if got := storedIDs(t, eng); !slices.Equal(got, []string{own.ID}) {
		t.Fatalf("stored %d events before SyncAfter was closed, want only the pushed one", len(got))
	}
	close(gate)
	want := append(w.wanted(), own.ID)
	slices.Sort(want)
	testutil.Eventually(t, "the frontier synced once SyncAfter is closed", func() bool {
		return slices.Equal(storedIDs(t, eng), want)
	})
}

// The traffic with a relay is counted (dtp_relay_requests_total,
// dtp_relay_received_bytes_total): as many REQs as the relay received, and
// the bytes of what it sent.
func TestRelayTrafficIsCounted(t *testing.T) {
	t.Parallel()
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	remote := faultrelay.StartForTest(t, faultrelay.Mode{},
		root.Trust(fixture.P(alice.Pubkey), "1", t0), alice.Trust(fixture.XUser("5"), "1", t0))
	eng := openFollowing(t, root.Pubkey, remote.URL)
	syncPasses(t, eng, 1)
	m := eng.sync.Metrics().Relays
	if len(m) != 1 || m[0].Requests == 0 || m[0].Requests != remote.Reqs() || m[0].BytesReceived < 2*300 {
		t.Fatalf("relay figures %+v: want %d REQs and the bytes of at least two events", m, remote.Reqs())
	}
}
