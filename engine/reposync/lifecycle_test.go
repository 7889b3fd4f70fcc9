package reposync

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// A maintainer's own announcement that names a further maintainer changes
// the repository's recursive maintainer set while running: the relays are
// asked for that maintainer's state. Before, the state filter kept the
// authors it was built with and the state came only after a restart.
func TestNewRecursiveMaintainerStateArrives(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	n := startNode(t, []string{ourService}, "")
	push(t, n, owner.Announce("tool", []string{ourService, b.URL}, []string{maint.Pubkey}, now-100))
	waitRelay(t, n, b.URL, "live connection", func(r status.RepoRelay) bool { return r.State == status.StateLive })

	state := maint2.RepoState("tool", now-80)
	b.Publish(state)
	b.Publish(maint.Announce("tool", []string{b.URL}, []string{maint2.Pubkey}, now-60)) // arrives live, layer 1
	waitStored(t, n, state)
}

// issueThenEnd has n hold owner's repository "tool" synced from relay b
// and an issue of it, then the owner end it (an announcement without our
// service, refused); it waits until the relay is closed and returns the
// issue.
func issueThenEnd(t *testing.T, n *node, b string, now int64) *nostr.Event {
	t.Helper()
	push(t, n, owner.Announce("tool", []string{ourService, b}, nil, now-100))
	issue := stranger.Root(KindIssue, "old thread", now-90, fixture.RepoRef(owner.Pubkey, "tool"))
	push(t, n, issue)
	if r, _ := n.pipe.SubmitWait(context.Background(), owner.Announce("tool", []string{b}, nil, now-50), "push"); r.OK() {
		t.Fatal("the announcement that drops us was stored")
	}
	testutil.EventuallyWithin(t, patience, "the ended repository's relays closed", func() bool {
		st := n.sync.Status()
		return st.Repos == 0 && len(st.Relays) == 0
	})
	return issue
}

// A repository whose owner lists this server again is followed with the
// root events held before the end: a comment on an old issue, which only a
// layer-3 filter reaches, arrives. Before, the plan followed none of them
// until a restart.
func TestListedAgainFollowsItsRoots(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	n := startNode(t, []string{ourService}, "")
	issue := issueThenEnd(t, n, b.URL, now)

	comment := maint.Tagging(1111, "E", now-40, issue.ID)
	b.Publish(comment)
	push(t, n, owner.Announce("tool", []string{ourService, b.URL}, nil, now-10))
	waitStored(t, n, comment)
	if st := n.sync.Status(); st.Repos != 1 || st.RootEvents != 1 {
		t.Fatalf("status after listing again: %d repos, %d root events; want 1 and 1", st.Repos, st.RootEvents)
	}
}

// An ended repository keeps what was stored and accepts nothing new about
// it: no root events, and no comments on its threads, pushed or fetched
// (GRASP-01 keeps events about repositories whose announcement lists the
// server). Listed again, even after a restart, it is followed with its held
// roots and the refused comment arrives from its relay. Before, the comment
// was stored while the repository was ended.
func TestEndedRepositoryAcceptsNothingNew(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	ctx := context.Background()
	b := faultrelay.StartForTest(t, faultrelay.Mode{})
	path := filepath.Join(t.TempDir(), "dtp.db")
	n, stop := startNodeAt(t, path, []string{ourService}, "")
	t.Cleanup(stop)
	issue := issueThenEnd(t, n, b.URL, now)

	comment := maint.Tagging(1111, "E", now-40, issue.ID)
	newIssue := stranger.Root(KindIssue, "after the end", now-39, fixture.RepoRef(owner.Pubkey, "tool"))
	for _, ev := range []*nostr.Event{comment, newIssue} {
		if r, _ := n.pipe.SubmitWait(ctx, ev, "push"); r.OK() || r.Message != "blocked: "+RuleNotAboutRepo {
			t.Fatalf("kind %d about the ended repository: %+v, want refused as %q", ev.Kind, r, RuleNotAboutRepo)
		}
	}
	if !n.has(issue.ID) {
		t.Fatal("the ended repository's stored issue was removed")
	}

	b.Publish(comment)
	stop()
	n, stop = startNodeAt(t, path, []string{ourService}, "")
	t.Cleanup(stop)
	if r, _ := n.pipe.SubmitWait(ctx, comment, "push"); r.OK() {
		t.Fatal("after a restart, a comment on the ended repository's thread was stored")
	}
	push(t, n, owner.Announce("tool", []string{ourService, b.URL}, nil, now-10))
	waitStored(t, n, comment)
	if st := n.sync.Status(); st.RootEvents != 1 {
		t.Fatalf("listed again after a restart: %d root events followed, want 1", st.RootEvents)
	}
}
