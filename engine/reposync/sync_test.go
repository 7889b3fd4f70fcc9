package reposync

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/health"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// node is this server as the tests see it: a real store, the real ingest
// pipeline with the profile's rules, and the Syncer on its commits.
type node struct {
	st   *store.Store
	pipe *ingest.Pipeline
	sync *Syncer
	sink *lateSink
}

func startNode(t *testing.T, services []string, bootstrap string) *node {
	t.Helper()
	n, stop := startNodeAt(t, filepath.Join(t.TempDir(), "dtp.db"), services, bootstrap)
	t.Cleanup(stop)
	return n
}

// startNodeAt runs a node on the database at path until stop (which may be
// called more than once).
func startNodeAt(t *testing.T, path string, services []string, bootstrap string) (*node, func()) {
	t.Helper()
	return startNodeWith(t, path, settingsFor(services, bootstrap))
}

// startNodeWith runs a node with settings s on the database at path until
// stop (which may be called more than once).
func startNodeWith(t *testing.T, path string, s settings.Settings) (*node, func()) {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sink := &lateSink{}
	n := &node{st: st, sink: sink}
	ctx, cancel := context.WithCancel(context.Background())
	n.sync, err = New(ctx, Config{
		Store: st, Sink: sink, Normalize: settings.NormalizeRelayURL, Settings: s,
		Window: WindowConfig{Length: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	n.pipe, err = ingest.New(st, pipelineRules{n.sync}, validation.VerifyEvent, ingest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	sink.sink = ingest.RelaySink{Pipeline: n.pipe, Prefix: SourcePrefix}
	n.pipe.OnCommit(func(c ingest.Committed) { n.sync.Committed(c.Stored) })
	n.pipe.OnReject(n.sync.Rejected)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.sync.Run(ctx)
	}()
	var once sync.Once
	return n, func() {
		once.Do(func() {
			cancel()
			<-done
			n.pipe.Close()
			st.Close()
		})
	}
}

// settingsFor are the default settings with our services and bootstrap
// relay, a page timeout of 5 s, and local relays allowed: the tests' relays
// listen on 127.0.0.1 with ws://.
func settingsFor(services []string, bootstrap string) settings.Settings {
	s := settings.Defaults()
	s.RepoSyncServices, s.RepoSyncBootstrap = services, bootstrap
	s.Limits.PageTimeoutSeconds = 5
	s.RepoSyncLocalRelays = true
	return s
}

// patience bounds every wait: a reconnect after an unstable connection
// waits out the first backoff step (5 s).
const patience = 15 * time.Second

// lateSink lets the pipeline, built after the Syncer, receive its events.
type lateSink struct {
	sink  ingest.RelaySink
	delay atomic.Int64 // per batch, nanoseconds: a slow pipeline
}

func (s *lateSink) Ingest(ctx context.Context, relay string, evs []*nostr.Event) (int, error) {
	time.Sleep(time.Duration(s.delay.Load()))
	return s.sink.Ingest(ctx, relay, evs)
}

func (n *node) has(id string) bool {
	ok, err := n.st.Has(id)
	return err == nil && ok
}

func waitStored(t *testing.T, n *node, evs ...*nostr.Event) {
	t.Helper()
	for _, ev := range evs {
		testutil.EventuallyWithin(t, patience, "event of kind "+strconv.Itoa(ev.Kind)+" stored", func() bool { return n.has(ev.ID) })
	}
}

// A repository announced on the bootstrap relay A and listed on relay B is
// discovered through A and synced from B over all three layers; one that
// does not list us is never stored, nor anything tagging it.
func TestDiscoveredOnBootstrapSyncedFromListedRelay(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	ann := owner.Announce("tool", []string{ourService, b.URL}, []string{maint.Pubkey}, now-100)
	other := stranger.Announce("other", []string{b.URL}, nil, now-100) // does not list us
	a := faultrelay.StartForTest(t, faultrelay.Mode{}, ann, other)

	ref := fixture.RepoRef(owner.Pubkey, "tool")
	otherRef := fixture.RepoRef(stranger.Pubkey, "other")
	issue := stranger.Root(KindIssue, "bug", now-90, ref)
	patch := maint.Root(KindPatch, "two repos", now-89, ref, otherRef)
	state := maint.RepoState("tool", now-88)
	commentByE := stranger.Tagging(1111, "E", now-80, issue.ID) // reaches the root only by E
	statusByE := owner.Tagging(1631, "e", now-79, patch.ID)
	reaction := stranger.Tagging(7, "A", now-78, ref)
	strangerState := stranger.RepoState("tool", now-77)
	otherIssue := stranger.Root(KindIssue, "elsewhere", now-76, otherRef)
	otherComment := stranger.Tagging(1111, "E", now-75, otherIssue.ID)
	b.Publish(ann, other, issue, patch, state, commentByE, statusByE, reaction, strangerState, otherIssue, otherComment)

	n := startNode(t, []string{ourService}, a.URL)
	waitStored(t, n, ann, issue, patch, state, commentByE, statusByE, reaction)
	for _, ev := range []*nostr.Event{other, otherIssue, otherComment, strangerState} {
		if n.has(ev.ID) {
			t.Fatalf("stored kind %d about a repository that does not list us (or by a stranger)", ev.Kind)
		}
	}
	st := n.sync.Status()
	if st.Repos != 1 || st.RootEvents != 2 {
		t.Fatalf("status: %d repos, %d root events; want 1 and 2", st.Repos, st.RootEvents)
	}

	// live: a new issue on B arrives, and a comment on it (a root that did not
	// exist at start) arrives through the self-subscriber's incremental filters
	fresh := stranger.Root(KindIssue, "new bug", now+1, ref)
	b.Publish(fresh)
	waitStored(t, n, fresh)
	reply := maint.Tagging(1111, "E", now+2, fresh.ID)
	b.Publish(reply)
	waitStored(t, n, reply)

	// a newer announcement naming relay D: D is connected and its history arrives
	d := faultrelay.StartForTest(t, faultrelay.Mode{})
	onlyOnD := stranger.Root(KindIssue, "only on D", now-50, ref)
	commentOnD := maint.Tagging(1111, "E", now-49, issue.ID)
	d.Publish(onlyOnD, commentOnD)
	b.Publish(owner.Announce("tool", []string{ourService, b.URL, d.URL}, []string{maint.Pubkey}, now+3))
	waitStored(t, n, onlyOnD, commentOnD)
}

// A relay that allows only 20 subscriptions per connection still gets every
// filter: more than 20 filter groups are packed into few REQs.
func TestRelayWithTwentySubscriptionsGetsEveryFilter(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 20})
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	b.Publish(ann)
	var roots, comments []*nostr.Event
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	for i := range 700 { // 7 chunks of root ids: 21 layer-3 filters, 26 filters in all
		roots = append(roots, stranger.Root(KindIssue, "issue "+strconv.Itoa(i), now-1000+int64(i), ref))
	}
	b.Publish(roots...)
	for i, r := range roots {
		comments = append(comments, maint.Tagging(1111, "E", now-500+int64(i), r.ID))
	}
	b.Publish(comments...)
	n := startNode(t, []string{ourService}, "")
	// the node starts with the repository already announced to it
	if r, err := n.pipe.SubmitWait(context.Background(), ann, "push"); err != nil || r.Outcome != ingest.Stored {
		t.Fatalf("push announcement: %+v %v", r, err)
	}
	waitStored(t, n, roots...)
	waitStored(t, n, comments...)
	rs := n.sync.Status().Relays
	if len(rs) != 1 || rs[0].Filters <= 20 || rs[0].Subscriptions > 20 {
		t.Fatalf("relay status %+v: want more than 20 filters in at most 20 subscriptions", rs)
	}
}

// Pushes: a patch for a held repository is stored before OK true; one for an
// unknown repository is refused naming the rule.
func TestPushedPatches(t *testing.T) {
	t.Parallel()
	n := startNode(t, []string{ourService}, "")
	ctx := context.Background()
	ann := owner.Announce("tool", []string{ourService}, nil, 100)
	if r, _ := n.pipe.SubmitWait(ctx, ann, "push"); r.Outcome != ingest.Stored {
		t.Fatalf("announcement: %+v", r)
	}
	patch := stranger.Root(KindPatch, "diff", 110, fixture.RepoRef(owner.Pubkey, "tool"))
	if r, _ := n.pipe.SubmitWait(ctx, patch, "push"); r.Outcome != ingest.Stored || !n.has(patch.ID) {
		t.Fatalf("patch for a held repository: %+v", r)
	}
	unknown := stranger.Root(KindPatch, "diff", 110, fixture.RepoRef(stranger.Pubkey, "nope"))
	if r, _ := n.pipe.SubmitWait(ctx, unknown, "push"); r.OK() || r.Message != "blocked: "+RuleNotAboutRepo {
		t.Fatalf("patch for an unknown repository: %+v", r)
	}
	if n.sync.aside.Len() != 0 {
		t.Fatal("a pushed event was kept aside")
	}
}

// Events fetched before what they depend on are kept aside and stored once
// the dependency lands.
func TestOutOfOrderEventsAreKeptAside(t *testing.T) {
	t.Parallel()
	n := startNode(t, []string{ourService}, "")
	ctx := context.Background()
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	issue := stranger.Root(KindIssue, "bug", 110, ref)
	comment := maint.Tagging(1111, "E", 111, issue.ID)
	sink := ingest.RelaySink{Pipeline: n.pipe, Prefix: SourcePrefix}
	if _, err := sink.Ingest(ctx, "wss://b.example", []*nostr.Event{comment, issue}); err != nil {
		t.Fatal(err)
	}
	if n.has(issue.ID) || n.sync.aside.Len() != 2 {
		t.Fatalf("before the announcement: stored %v, aside %d", n.has(issue.ID), n.sync.aside.Len())
	}
	if r, _ := n.pipe.SubmitWait(ctx, owner.Announce("tool", []string{ourService}, nil, 100), "push"); r.Outcome != ingest.Stored {
		t.Fatalf("announcement: %+v", r)
	}
	waitStored(t, n, issue, comment)
}

// waitRelay waits until the relay's status row satisfies ok.
func waitRelay(t *testing.T, n *node, url, what string, ok func(r status.RepoRelay) bool) status.RepoRelay {
	t.Helper()
	var row status.RepoRelay
	testutil.EventuallyWithin(t, patience, what, func() bool {
		for _, r := range n.sync.Status().Relays {
			if r.URL == url {
				row = r
				return ok(r)
			}
		}
		return false
	})
	return row
}

// followToolOn starts a node that follows owner's repository "tool" from a
// fault relay B (also its bootstrap relay), live on B with every filter's
// history fetched.
func followToolOn(t *testing.T, now int64) (*node, *faultrelay.Relay) {
	t.Helper()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	b.Publish(ann)
	n := startNode(t, []string{ourService}, b.URL)
	waitStored(t, n, ann)
	waitRelay(t, n, b.URL, "live connection", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	testutil.EventuallyWithin(t, patience, "the repository's filters fetched", func() bool {
		c, ok := n.sync.relays.Get(b.URL)
		return ok && len(c.wants.fullSet()) > 1 && c.wants.owedNow() == 0
	})
	return n, b
}

// A relay dropped mid-stream is reconnected with since = last success − 15
// min: what it got meanwhile arrives (gap events: those new to us, not
// every event re-read), what is older than that waits for the daily
// catch-up.
func TestDroppedRelayReconnectsAndFillsTheGap(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b := followToolOn(t, now)

	b.SetMode(faultrelay.Mode{DropAfterAccept: true})
	b.DropAll()
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	recent := stranger.Root(KindIssue, "while you were away", now, ref)
	old := stranger.Root(KindIssue, "from long ago", now-3600, ref) // before last success − 15 min
	b.Publish(recent, old)
	waitRelay(t, n, b.URL, "the drop seen", func(r status.RepoRelay) bool { return !r.Connected })
	b.SetMode(faultrelay.Mode{})

	waitStored(t, n, recent)
	if n.has(old.ID) {
		t.Fatal("the reconnect re-read more than last success − 15 min")
	}
	// the announcement, re-read within the 15 min, is not new: only the missed issue counts
	testutil.EventuallyWithin(t, patience, "the gap counted", func() bool { return n.sync.counts[b.URL].gap.Load() >= 1 })
	if gap := n.sync.counts[b.URL].gap.Load(); gap != 1 {
		t.Fatalf("gap events %d, want the missed issue counted, not what was re-read", gap)
	}
}

// Each window that adds a root adds live filters, but the connection never
// keeps more REQs than the relay's max_subscriptions less one (left for
// history pages): new filters are packed into fuller REQs within it, so the
// relay refuses none, and the packed set still follows every root.
func TestLiveFiltersStayWithinTheRelaysAllowance(t *testing.T) {
	t.Parallel()
	const allowed = 4
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: allowed, AdvertiseSubscriptions: true})
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	b.Publish(ann)
	n := startNode(t, []string{ourService}, b.URL)
	waitStored(t, n, ann)
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	prev := waitRelay(t, n, b.URL, "live", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	most := prev.Subscriptions
	for i := range 25 { // each new root, in its own window, adds 3 live filters
		issue := stranger.Root(KindIssue, "issue "+strconv.Itoa(i), now+int64(i), ref)
		b.Publish(issue)
		waitStored(t, n, issue)
		r := waitRelay(t, n, b.URL, "the root's filters", func(r status.RepoRelay) bool { return r.Filters != prev.Filters })
		most, prev = max(most, r.Subscriptions), r
	}
	if most > allowed-1 || b.RefusedReqs() != 0 || prev.Failures != 0 {
		t.Fatalf("REQs peaked at %d, now %+v, %d refused: want at most %d REQs carrying every filter, none refused",
			most, prev, b.RefusedReqs(), allowed-1)
	}
	reply := maint.Tagging(1111, "E", now+100, n.sync.plan.Roots(repoRef(ref))[0])
	b.Publish(reply)
	waitStored(t, n, reply)
}

// A relay that allows two subscriptions, says so nowhere and refuses the
// excess with only a NOTICE (strfry) is served within what it accepts: a
// refused page is asked again, never a reason to drop the connection or
// leave the relay alone. The live set is one REQ here (the allowance less
// one for paging), so the roots' filters must fit one 128 KiB message: 400
// roots are 80 KB of ids (700 were 141 KB, two REQs, which left the history
// pages no room). They are older than the live window: each window of new
// roots resubscribes the whole set, which re-reads the last
// relay.ReconnectWindow, and the number of windows grows with the load.
func TestRefusingRelayIsServedWithinWhatItAccepts(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 2})
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	var roots []*nostr.Event
	for i := range 400 {
		roots = append(roots, stranger.Root(KindIssue, "issue "+strconv.Itoa(i), now-7200+int64(i), ref))
	}
	b.Publish(ann)
	b.Publish(roots...)
	n := startNode(t, []string{ourService}, b.URL)
	for _, ev := range roots {
		waitStored(t, n, ev)
	}
	r := waitRelay(t, n, b.URL, "live", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	if r.CoolingUntil != 0 || r.Failures != 0 || r.Subscriptions > 2 {
		t.Fatalf("relay row %+v: want it live within its allowance, never cooled down or failed", r)
	}
	reply := maint.Tagging(1111, "E", now+100, roots[0].ID)
	b.Publish(reply)
	waitStored(t, n, reply)
}

// A live set the relay refuses for the number of its REQs is repacked
// within what the relay showed it accepts at once, not after a minute's
// cool-down: here a restart (nothing learned of the relay yet) subscribes
// the held roots' filters in more REQs than the relay allows, and what the
// relay gets next still arrives within seconds.
func TestRefusedLiveSetFitsTheAllowanceAtOnce(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	_, b, roots, path, stopFirst := refusingRelayWithRoots(t, now)
	stopFirst()
	resetCountersAfterStop(t, b)
	n, stop := startNodeAt(t, path, []string{ourService}, b.URL)
	t.Cleanup(stop)
	r := waitRelay(t, n, b.URL, "the roots' filters live", func(r status.RepoRelay) bool { return r.State == status.StateLive && r.Filters >= 20 })
	if b.RefusedReqs() == 0 || r.CoolingUntil != 0 {
		t.Fatalf("%d REQs refused, relay row %+v: want a refusal and no cool-down", b.RefusedReqs(), r)
	}
	reply := maint.Tagging(1111, "E", now+100, roots[0].ID)
	b.Publish(reply)
	testutil.EventuallyWithin(t, 10*time.Second, "the reply delivered live", func() bool { return n.has(reply.ID) })
}

// refusingRelayWithRoots is a node (on the database at path, until stop)
// following a repository on a relay that allows 2 REQs at once, with 600
// roots: their filters take more live REQs than that (at 10 filters a REQ)
// and one REQ within 128 KiB. It returns once the roots are stored and
// their filters are in the live set.
func refusingRelayWithRoots(t *testing.T, now int64) (n *node, b *faultrelay.Relay, roots []*nostr.Event, path string, stop func()) {
	t.Helper()
	b = faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 2})
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	for i := range 600 {
		roots = append(roots, stranger.Root(KindIssue, "issue "+strconv.Itoa(i), now-7200+int64(i), ref)) // older than a reconnect re-reads
	}
	b.Publish(ann)
	b.Publish(roots...)
	path = filepath.Join(t.TempDir(), "dtp.db")
	n, stop = startNodeAt(t, path, []string{ourService}, b.URL)
	t.Cleanup(stop)
	waitStored(t, n, roots...)
	waitRelay(t, n, b.URL, "the roots' filters live", func(r status.RepoRelay) bool { return r.State == status.StateLive && r.Filters >= 20 })
	return n, b, roots, path, stop
}

// What a relay's refusals taught about how many REQs it allows is kept with
// the relay, not with the connection: after a drop, the reconnect's
// catch-up and live subscriptions stay within it and are not refused again.
func TestLearnedAllowanceSurvivesAReconnect(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b, roots, _, _ := refusingRelayWithRoots(t, now)
	if b.RefusedReqs() == 0 {
		t.Fatal("the relay refused none of the first connection's REQs: nothing to learn")
	}
	refused, accepts := b.RefusedReqs(), b.Accepts()
	b.DropAll()
	testutil.EventuallyWithin(t, patience, "reconnected", func() bool { return b.Accepts() > accepts })
	waitRelay(t, n, b.URL, "live again", func(r status.RepoRelay) bool { return r.State == status.StateLive && r.Connected })
	reply := maint.Tagging(1111, "E", now+100, roots[0].ID)
	b.Publish(reply)
	waitStored(t, n, reply)
	if got := b.RefusedReqs() - refused; got != 0 {
		t.Fatalf("the relay refused %d REQs of the reconnected connection, want none: it allows 2, as the first taught", got)
	}
}

// The owner's newer announcement without our service is refused, removes the
// held one and ends the repository: its filters go, its events are refused.
func TestOwnerEndsTheRepository(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	n := startNode(t, []string{ourService}, "")
	ctx := context.Background()
	held := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	if r, _ := n.pipe.SubmitWait(ctx, held, "push"); r.Outcome != ingest.Stored {
		t.Fatalf("announcement: %+v", r)
	}
	waitRelay(t, n, b.URL, "B connected", func(r status.RepoRelay) bool { return r.Connected })

	newer := owner.Announce("tool", []string{b.URL}, nil, now-50)
	if r, _ := n.pipe.SubmitWait(ctx, newer, "push"); r.OK() || r.Message != "blocked: "+RuleNotListed {
		t.Fatalf("newer announcement without us: %+v", r)
	}
	if n.has(held.ID) || n.has(newer.ID) {
		t.Fatal("the held announcement was not removed, or the refused one was stored")
	}
	testutil.EventuallyWithin(t, patience, "B closed", func() bool { return len(n.sync.Status().Relays) == 0 && n.sync.Status().Repos == 0 })
	patch := stranger.Root(KindPatch, "late", now, fixture.RepoRef(owner.Pubkey, "tool"))
	if r, _ := n.pipe.SubmitWait(ctx, patch, "push"); r.OK() {
		t.Fatal("a patch for an ended repository was stored")
	}
	if r, _ := n.pipe.SubmitWait(ctx, held, "push"); r.Outcome == ingest.Stored {
		t.Fatal("the older announcement came back after the end")
	}
}

// While paused (the disk is full) no sync relay is connected; afterwards the
// connections reopen and what the relay got meanwhile arrives.
func TestPauseClosesConnectionsUntilItEnds(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b := followToolOn(t, now)
	n.sync.Pause(true)
	if st := n.sync.Status(); !st.Paused || len(st.Relays) != 0 {
		t.Fatalf("paused status %+v: want no connection", st)
	}
	issue := stranger.Root(KindIssue, "while paused", now, fixture.RepoRef(owner.Pubkey, "tool"))
	b.Publish(issue)
	time.Sleep(200 * time.Millisecond)
	if n.has(issue.ID) {
		t.Fatal("fetched while paused")
	}
	n.sync.Pause(false)
	waitStored(t, n, issue)
	if n.sync.Status().Paused {
		t.Fatal("still paused")
	}
}

// resetCountersAfterStop zeroes r's counters once r has answered everything
// a stopped node sent it: a page asked just before the stop is still
// answered, and its events must not count as the next node's.
func resetCountersAfterStop(t *testing.T, r *faultrelay.Relay) {
	t.Helper()
	testutil.EventuallyWithin(t, patience, "the stopped node's connections served to the end", func() bool { return r.Conns() == 0 })
	r.ResetCounters()
}

// oldHistory is the announcement of owner's "tool", listing relay url, and
// n issues about it, all older than the live subscriptions' window (now −
// 15 min).
func oldHistory(url string, n int, now int64) []*nostr.Event {
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	evs := []*nostr.Event{owner.Announce("tool", []string{ourService, url}, nil, now-8000)}
	for i := range n {
		evs = append(evs, stranger.Root(KindIssue, fmt.Sprint("bug ", i), now-7200-int64(i), ref))
	}
	return evs
}

// holdingHistory runs a node on a new database, with b as its bootstrap
// relay, until it holds evs, then stops it.
func holdingHistory(t *testing.T, b *faultrelay.Relay, evs []*nostr.Event) (path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "dtp.db")
	n, stop := startNodeAt(t, path, []string{ourService}, b.URL)
	waitStored(t, n, evs...)
	stop()
	return path
}

// missedWhileStopped is a relay b with an announcement and n old issues
// (issues) that a stopped node on path holds, and one more issue, missed,
// published on b while the node was stopped: what a catch-up must fetch.
func missedWhileStopped(t *testing.T, n int, now int64) (b *faultrelay.Relay, path string, issues []*nostr.Event, missed *nostr.Event) {
	t.Helper()
	b = faultrelay.StartForTest(t, faultrelay.Mode{})
	issues = oldHistory(b.URL, n, now)
	b.Publish(issues...)
	path = holdingHistory(t, b, issues)
	missed = stranger.Root(KindIssue, "while we were stopped", now-7300, fixture.RepoRef(owner.Pubkey, "tool"))
	b.Publish(missed)
	return b, path, issues, missed
}

// restartForCatchUp starts the node on path again once the stopped one's
// connections are served to the end, with b's counters reset and its last
// catch-up 25 h back: the first connection makes the daily catch-up.
func restartForCatchUp(t *testing.T, b *faultrelay.Relay, path string) (*node, func()) {
	t.Helper()
	resetCountersAfterStop(t, b)
	caughtUpYesterday(t, path, b.URL)
	n, stop := startNodeAt(t, path, []string{ourService}, b.URL)
	t.Cleanup(stop)
	return n, stop
}

// caughtUpYesterday moves the relay's last full catch-up, kept with its
// health in the stopped node's database, 25 h back: the next start's first
// connection makes the daily catch-up.
func caughtUpYesterday(t *testing.T, path, url string) {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, ok, err := st.RelayHealth(health.ProfileRepository, url)
	if err != nil || !ok || h.CaughtUpAt == 0 {
		t.Fatalf("health of %s %+v (ok %v, err %v): want a catch-up kept", url, h, ok, err)
	}
	h.CaughtUpAt -= int64((dailyMin + dailySpread) / time.Second) // due, wherever in its 23–25 h it falls
	if err := st.SaveRelayHealth(health.ProfileRepository, h); err != nil {
		t.Fatal(err)
	}
}

// The daily catch-up (here: the first connection after a restart once it
// is due) of a history we mostly hold is reconciled with NIP-77: only the
// issue we lack is sent, and no event we hold.
func TestCatchUpReconcilesHeldHistory(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b, path, issues, missed := missedWhileStopped(t, 40, now) // missed: older than any reconnect window
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	n, stop := restartForCatchUp(t, b, path)
	waitStored(t, n, missed)
	r := waitRelay(t, n, b.URL, "live connection", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	if b.NegAnswers() == 0 || b.EventsSent() != 1 {
		t.Fatalf("%d negentropy answers, %d events sent: want reconciliation and only the missed issue", b.NegAnswers(), b.EventsSent())
	}
	if r.NIP77 != status.NIP77Used || r.IDsReconciled < int64(len(issues)) || r.ReconcileBytes == 0 {
		t.Fatalf("relay status %+v: want nip77 used, at least %d ids and some bytes", r.Refresh, len(issues))
	}

	// a relay that refuses NIP-77 is paged: the same events stored, shown as such
	stop()
	refused := stranger.Root(KindIssue, "while stopped again", now-7400, ref)
	b.Publish(refused)
	b.SetMode(faultrelay.Mode{NegRefusal: "NEG-ERR"})
	n, stop = restartForCatchUp(t, b, path)
	waitStored(t, n, refused)
	r = waitRelay(t, n, b.URL, "live connection", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	if sent := b.EventsSent(); sent < int64(len(issues)+2) {
		t.Fatalf("the paged catch-up received %d events, want the whole history (%d)", sent, len(issues)+2)
	}
	if r.NIP77 != status.NIP77Unsupported {
		t.Fatalf("relay status nip77 %q after a refusal, want %q", r.NIP77, status.NIP77Unsupported)
	}
}

// A repository relay counts the events it brought that were new to us, as a
// trust relay does (kept with its health): its history and what arrives
// live. Before, only trust relays counted them.
func TestRepositoryRelayCountsEventsStored(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b := followToolOn(t, now)
	stored := func() int64 { return n.sync.links.Get(b.URL).Health().EventsStored }
	if got := stored(); got < 1 {
		t.Fatalf("%d events stored from the relay's history, want the announcement counted", got)
	}
	before := stored()
	issue := stranger.Root(KindIssue, "live", now+1, fixture.RepoRef(owner.Pubkey, "tool"))
	b.Publish(issue)
	waitStored(t, n, issue)
	testutil.Eventually(t, "the live issue counted", func() bool { return stored() == before+1 })
}

// A relay that says it is rate-limiting ("rate-limited:" in CLOSED) gets a
// cool-down of about a minute on the same connection: no drop and
// reconnect, no storm of REQs meanwhile, and the status says until when.
func TestRateLimitedRelayIsCooledDownWithoutReconnecting(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b := followToolOn(t, now)
	accepts, reqs := b.Accepts(), b.Reqs()
	b.SetMode(faultrelay.Mode{RateLimited: true})
	// a new root, delivered live, makes the window send the relay incremental REQs
	b.Publish(stranger.Root(KindIssue, "while limited", now+1, fixture.RepoRef(owner.Pubkey, "tool")))
	testutil.EventuallyWithin(t, patience, "the relay's rate-limited refusal", func() bool { return b.RefusedReqs() > 0 })
	r := waitRelay(t, n, b.URL, "cool-down shown", func(r status.RepoRelay) bool { return r.CoolingUntil != 0 })
	if wait := r.CoolingUntil - time.Now().Unix(); wait < 40 || wait > 70 {
		t.Errorf("cooling down for %d s, want about a minute", wait)
	}
	time.Sleep(3 * time.Second) // what a storm would fill
	if got := b.Accepts() - accepts; got != 0 {
		t.Errorf("%d new connections after a rate-limited refusal, want none (the connection stays)", got)
	}
	if got := b.Reqs() - reqs; got > 3 {
		t.Errorf("%d REQs within 3 s of a rate-limited refusal, want the relay left alone", got)
	}
	if b.Conns() != 1 {
		t.Errorf("%d connections open, want the one kept", b.Conns())
	}
}

// After a NIP-77 reconciliation, the events it said we lack are checked
// for: a relay that leaves the one we lack out of its answer is asked once
// more for it, and it arrives in the same catch-up (a REQ that brings none
// of its ids would otherwise end the fetch).
func TestReconciledEventLeftOutIsAskedForOnce(t *testing.T) {
	t.Parallel()
	b, path, _, missed := missedWhileStopped(t, 10, time.Now().Unix())
	b.SetMode(faultrelay.Mode{OmitOnce: missed.ID})
	n, _ := restartForCatchUp(t, b, path)
	waitStored(t, n, missed)
	if asks := b.OmitAsks(); b.NegAnswers() == 0 || asks != 2 {
		t.Fatalf("%d negentropy answers, %d REQs naming the left-out event: want a reconciliation, the ask and one more",
			b.NegAnswers(), asks)
	}
}

// The daily catch-up is due 23–25 h after the last, at a time drawn from
// the relay and the last catch-up: the same after a restart, spread over
// two hours across relays (not every relay at UTC midnight).
func TestDailyCatchUpIsSpreadOverTwoHours(t *testing.T) {
	t.Parallel()
	last := time.Unix(1_790_000_000, 0)
	seen := map[time.Duration]bool{}
	for i := range 50 {
		c := &repoRelay{url: fmt.Sprintf("wss://relay%d.example", i), caughtUpAt: last}
		wait := c.nextCatchUp().Sub(last)
		if wait < 23*time.Hour || wait >= 25*time.Hour {
			t.Fatalf("%s: next catch-up %v after the last, want 23–25 h", c.url, wait)
		}
		if again := (&repoRelay{url: c.url, caughtUpAt: last}).nextCatchUp(); !again.Equal(c.nextCatchUp()) {
			t.Fatalf("%s: due %v, then %v after a restart", c.url, c.nextCatchUp(), again)
		}
		if c.catchUpDue(last.Add(wait-time.Second)) || !c.catchUpDue(last.Add(wait)) {
			t.Fatalf("%s: due before %v or not at it", c.url, wait)
		}
		seen[wait/(10*time.Minute)] = true
	}
	if len(seen) < 8 {
		t.Fatalf("50 relays fall in %d ten-minute slots of the two hours, want them spread", len(seen))
	}
	if !(&repoRelay{url: "wss://new.example"}).catchUpDue(last) {
		t.Fatal("a relay never caught up is not due")
	}
}

// An event refused for what it is (here a bad signature over its own id)
// is downloaded once: the next daily catch-up's NIP-77 says we lack it,
// and it is not asked for again, after a restart too.
func TestRefusedEventIsNotDownloadedAgain(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	issues := oldHistory(b.URL, 5, now)
	forged := *stranger.Root(KindIssue, "signed by no one", now-7300, ref)
	forged.Sig = strings.Repeat("0", 128) // the id is the content's; the signature is not the author's
	b.Publish(issues...)
	b.Publish(&forged)
	path := filepath.Join(t.TempDir(), "dtp.db")
	n, stop := startNodeAt(t, path, []string{ourService}, b.URL)
	waitStored(t, n, issues...)
	waitRelay(t, n, b.URL, "live", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	stop()
	if n.has(forged.ID) {
		t.Fatal("the forged issue was stored")
	}

	missed := stranger.Root(KindIssue, "while we were stopped", now-7400, ref)
	b.Publish(missed)
	n, stop = restartForCatchUp(t, b, path)
	waitStored(t, n, missed)
	waitRelay(t, n, b.URL, "live again", func(r status.RepoRelay) bool { return r.State == status.StateLive })
	if b.NegAnswers() == 0 || b.EventsSent() != 1 {
		t.Fatalf("%d negentropy answers, %d events sent: want a reconciliation and only the missed issue, not the refused one again",
			b.NegAnswers(), b.EventsSent())
	}
}

// A relay sends newest first, so an issue's deletion arrives before the
// issue: it waits aside for it, and wins when it arrives (the issue is not
// kept); the deletion itself is kept and served.
func TestDeletionArrivingFirstStillWins(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	issue := stranger.Root(KindIssue, "spam", now-90, ref)
	kept := stranger.Root(KindIssue, "real", now-89, ref)
	deletion := stranger.Sign(&nostr.Event{Kind: KindDeletion, CreatedAt: nostr.Timestamp(now - 80),
		Tags: nostr.Tags{{"e", issue.ID}, {"a", ref}}})
	b.Publish(ann, issue, kept, deletion)
	n := startNode(t, []string{ourService}, b.URL)
	waitStored(t, n, ann, kept, deletion) // the issue came in the same page as the one kept
	testutil.EventuallyWithin(t, patience, "the deleted issue gone", func() bool { return !n.has(issue.ID) })
}

// A repository that ends (here: its owner deletes the announcement) leaves
// its relay's live subscriptions at once, not at the next consolidation or
// restart: a new issue on it that the relay gets afterwards is not sent to
// us, and not stored.
func TestEndedRepositoryLeavesTheLiveFiltersAtOnce(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	n, b := followToolOn(t, now)
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	before := waitRelay(t, n, b.URL, "live connection", func(r status.RepoRelay) bool { return r.State == status.StateLive }).Filters
	deletion := owner.Sign(&nostr.Event{Kind: KindDeletion, CreatedAt: nostr.Timestamp(now - 50), Tags: nostr.Tags{{"a", ref}}})
	if r, err := n.pipe.SubmitWait(context.Background(), deletion, "push"); err != nil || !r.OK() {
		t.Fatalf("the owner's deletion of the announcement: %+v %v", r, err)
	}
	waitRelay(t, n, b.URL, "the ended repository's filters gone from the live set", func(r status.RepoRelay) bool {
		return n.sync.Status().Repos == 0 && r.Filters < before && r.State == status.StateLive
	})
	// the new subscriptions re-read 15 min of what stays (the relay's layer 1)
	sent := b.EventsSent()
	for settled := false; !settled; sent = b.EventsSent() {
		time.Sleep(300 * time.Millisecond)
		settled = b.EventsSent() == sent
	}
	issue := stranger.Root(KindIssue, "after the end", now+1, ref)
	b.Publish(issue)
	time.Sleep(time.Second) // a live subscription sends it at once
	if got := b.EventsSent() - sent; got != 0 || n.has(issue.ID) {
		t.Fatalf("the relay sent %d events after the repository ended (stored: %v), want none", got, n.has(issue.ID))
	}
}

// A relay that allows exactly one subscription (and says so in NIP-11):
// the live REQ steps aside (CLOSE) for the history pages of new filters and
// resumes after, instead of each page waiting for room until it times out.
// A new issue and a reply to it arrive, with no failure; after that, the
// one live REQ carries the issue's thread.
func TestOneSubscriptionRelayLiveStepsAsideForPages(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 1, AdvertiseSubscriptions: true})
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	ann := owner.Announce("tool", []string{ourService, b.URL}, nil, now-100)
	old := stranger.Root(KindIssue, "old", now-7200, ref)
	b.Publish(ann, old)
	n := startNode(t, []string{ourService}, b.URL)
	waitStored(t, n, ann, old)
	// the reply comes with the issue, before the issue's thread filters
	// exist: only a history page of those filters brings it
	issue := stranger.Root(KindIssue, "new", now+1, ref)
	reply := maint.Tagging(1111, "E", now+2, issue.ID)
	b.Publish(issue, reply)
	waitStored(t, n, issue, reply)
	r := waitRelay(t, n, b.URL, "live", func(r status.RepoRelay) bool { return r.State == status.StateLive && r.Subscriptions == 1 })
	if r.Failures != 0 || b.RefusedReqs() != 0 {
		t.Fatalf("relay row %+v, %d REQs refused: want no failure and nothing refused", r, b.RefusedReqs())
	}
	again := maint.Tagging(1111, "E", now+4, issue.ID)
	b.Publish(again)
	waitStored(t, n, again)
}
