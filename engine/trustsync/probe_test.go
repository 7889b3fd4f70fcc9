package trustsync

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
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
