package trustsync

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// A pass after a first one asks each family's new events with one NIP-77
// window probe (issue 26), not a reconciliation per WideBatch keys: with
// nothing new it sends no REQ and receives no event. What is new is fetched
// once: a member's statement is stored, an outsider's is not, and the next
// pass does not fetch the outsider's again.
func TestPassWithNothingNewIsOneProbePerFamily(t *testing.T) {
	now := time.Now().Unix()
	root := newPerson("root")
	members := make([]person, 3*WideBatch/2)
	var evs []*nostr.Event
	for i := range members {
		members[i] = newPerson(fmt.Sprintf("member %d", i))
		at := now - 3*86400 + int64(i) // distinct times: a page of equal times cannot move on
		evs = append(evs, root.trust(members[i], "1", at), members[i].trust(root, "1", at))
	}
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, evs...)
	limits := settings.DefaultLimits()
	// root's statements stay under the per-author cap, maxEvents ÷ maxTotalAuthors
	limits.MaxTotalAuthors, limits.MaxEvents = 1000, 1000*len(members)
	rg := newRigWith(t, limits, settings.FrontierInterval, root, relay.URL)
	rg.sink.persist = rg.store
	pass := func(what string) {
		t.Helper()
		relay.ResetCounters()
		if cov, err := rg.runner.RunOnce(context.Background()); err != nil || cov.State != status.StateComplete {
			t.Fatalf("%s: %+v %v", what, cov, err)
		}
	}
	pass("first pass")
	if got := len(rg.frontier.Authors()); got != len(members)+1 {
		t.Fatalf("frontier of %d, want %d", got, len(members)+1)
	}

	pass("nothing new")
	// one window per family asked before (trust, claims, ratings): each
	// answered at once, the sets being the same
	if reqs, sent, negs := relay.Reqs(), relay.EventsSent(), relay.NegAnswers(); reqs != 0 || sent != 0 || negs > 3 {
		t.Fatalf("a pass with nothing new: %d REQs, %d events, %d NIP-77 answers; want 0, 0 and one per family", reqs, sent, negs)
	}

	outsider := newPerson("outsider")
	news := members[7].trust(members[8], "1", now)
	aside := outsider.trust(members[9], "1", now)
	relay.Publish(news, aside)
	pass("one new statement and an outsider's")
	if !rg.sink.has(news.ID) || rg.sink.has(aside.ID) {
		t.Fatalf("the member's statement stored: %v, the outsider's: %v; want only the member's", rg.sink.has(news.ID), rg.sink.has(aside.ID))
	}
	if sent := relay.EventsSent(); sent != 2 {
		t.Fatalf("%d events sent, want the 2 new ones", sent)
	}
	cs, err := rg.store.Cursors(relay.URL, trustFamily.scope, []string{members[7].pk})
	if err != nil || cs[members[7].pk].LastSeenCreatedAt != now {
		t.Fatalf("the member's cursor: %+v %v, want its new statement's time %d", cs[members[7].pk], err, now)
	}

	pass("the outsider's statement again")
	if sent := relay.EventsSent(); sent != 0 {
		t.Fatalf("%d events sent, want none: the outsider's statement was seen", sent)
	}
}

// cursorReads counts the cursors a pass reads from the store.
type cursorReads struct {
	*store.Store
	keys atomic.Int64
}

func (c *cursorReads) Cursors(relay, scope string, authors []string) (map[string]store.Cursor, error) {
	cs, err := c.Store.Cursors(relay, scope, authors)
	c.keys.Add(int64(len(cs)))
	return cs, err
}

// Keys whose cursors all completed today are recorded as swept, also the
// whole of a family fetched in several runs (the trust walk's levels), and
// the next pass asks their window without reading one cursor (at 100,000
// people those reads were a third of a pass with nothing new); only a key a
// new event names has its cursor read. A failed batch drops the sweeps of its
// family: the pass after it reads the cursors again and asks the failed key
// by its own batch, and the pass after that is swept again.
func TestSweptKeysAreNotReadOneByOne(t *testing.T) {
	now := time.Now().Unix()
	root := newPerson("root")
	members := make([]person, 40)
	var evs []*nostr.Event
	for i := range members {
		members[i] = newPerson(fmt.Sprintf("member %d", i))
		at := now - 3*86400 + int64(i)
		evs = append(evs, root.trust(members[i], "1", at), members[i].trust(root, "1", at))
	}
	relay := faultrelay.StartForTest(t, faultrelay.Mode{}, evs...)
	st := openStore(t, relay.URL)
	reads := &cursorReads{Store: st}
	sink := newMemSink()
	sink.persist = st
	fr := newFrontier(sink, root.pk)
	set := newSettings(settings.FrontierInterval)
	set.Limits.MaxTotalAuthors, set.Limits.MaxEvents = 1000, 1000*len(members) // root's statements under the per-author cap
	runner := New(Config{Store: reads, Sink: sink, Frontier: fr, Settings: set})
	pass := func(what string) {
		t.Helper()
		relay.ResetCounters()
		reads.keys.Store(0)
		if cov, err := runner.RunOnce(context.Background()); err != nil || cov.State != status.StateComplete {
			t.Fatalf("%s: %+v %v", what, cov, err)
		}
	}
	pass("first pass")
	// the first pass walked the frontier's trust level by level, and the
	// next starts from the whole of it: both sets are recorded
	frontier := fr.Authors()
	for _, f := range []*family{&trustFamily, &ratingsFamily} {
		if _, ok, err := st.Sweep(relay.URL, f.scope, store.SumKeys(frontier), utcDay(time.Now().Unix())); err != nil || !ok {
			t.Fatalf("the frontier's %s not recorded as swept after a complete pass: %v %v", f.scope, ok, err)
		}
	}

	pass("nothing new")
	if n, reqs, sent := reads.keys.Load(), relay.Reqs(), relay.EventsSent(); n != 0 || reqs != 0 || sent != 0 {
		t.Fatalf("a pass with nothing new read %d keys' cursors, sent %d REQs and got %d events; want none", n, reqs, sent)
	}

	news := members[7].trust(members[8], "1", now)
	relay.Publish(news)
	pass("one new statement")
	if !sink.has(news.ID) {
		t.Fatal("the new statement was not fetched")
	}
	if n := reads.keys.Load(); n != 1 {
		t.Fatalf("%d keys' cursors read, want the author of the new statement's alone", n)
	}

	cs, err := st.Cursors(relay.URL, trustFamily.scope, []string{members[5].pk})
	if err != nil {
		t.Fatal(err)
	}
	broken := failed(relay.URL, trustFamily.scope, []string{members[5].pk}, cs, time.Now(), errors.New("test: the batch failed"))
	broken[0].NextRetryAt = now - 1 // due now
	if err := st.SaveCursors(broken); err != nil {
		t.Fatal(err)
	}
	pass("after a failed batch")
	if n := reads.keys.Load(); n < int64(len(members)) {
		t.Fatalf("after a failed batch the pass read %d keys' cursors, want the family's again", n)
	}
	if relay.Reqs()+relay.NegAnswers() == 0 {
		t.Fatal("the failed key was not asked again")
	}
	cs, err = st.Cursors(relay.URL, trustFamily.scope, []string{members[5].pk})
	if err != nil || cs[members[5].pk].Retrying() {
		t.Fatalf("the failed key's cursor after the retry: %+v %v, want completed", cs[members[5].pk], err)
	}
	pass("swept again")
	if n := reads.keys.Load(); n != 0 {
		t.Fatalf("%d keys' cursors read, want none once swept again", n)
	}
}

// A pass with nothing new makes the walk's step once: the step after one
// that stored nothing and left the frontier as it was would find nothing,
// and it reads every X account's hints (0.3 s at 300,000 people).
func TestWalkStepsOnlyWhileSomethingChanges(t *testing.T) {
	now := time.Now().Unix()
	root, a, b, hinted := newPerson("root"), newPerson("a"), newPerson("b"), newPerson("hinted")
	relay := faultrelay.StartForTest(t, faultrelay.Mode{},
		root.trust(a, "1", now-100), a.trust(b, "1", now-90),
		// a statement about an X account, with a hint: discovery asks for the account at each pass
		b.sign(32009, now-80, nostr.Tags{{"d", "x:42"}, {"i", "user:id:42", "", hinted.pk}, {"v", "1"}}))
	rg := newRig(t, settings.FrontierInterval, root, relay.URL)
	rg.sink.persist = rg.store
	rg.frontier.candidatesOnce = true
	for _, what := range []string{"first pass", "nothing new"} {
		rg.frontier.hintsRead.Store(0)
		if cov, err := rg.runner.RunOnce(context.Background()); err != nil || cov.State != status.StateComplete {
			t.Fatalf("%s: %+v %v", what, cov, err)
		}
	}
	if subjects := rg.frontier.DiscoverySubjects(); len(subjects) != 1 {
		t.Fatalf("discovery subjects %v, want the one X account", subjects)
	}
	if n := rg.frontier.hintsRead.Load(); n != 1 {
		t.Fatalf("a pass with nothing new read the hints %d times, want once", n)
	}
}
