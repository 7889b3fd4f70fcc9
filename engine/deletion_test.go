package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// served asks the server over a real socket for the event with this id and
// reports whether it is sent.
func served(t *testing.T, url, id string) bool {
	t.Helper()
	c := dialRaw(t, url)
	frame, _ := json.Marshal([]any{"REQ", "d", nostr.Filter{IDs: []string{id}}})
	if err := c.write(string(frame)); err != nil {
		t.Fatal(err)
	}
	got := false
	for {
		msg := c.read()
		switch str(msg[0]) {
		case "EVENT":
			got = true
		case "EOSE":
			return got
		default:
			t.Fatalf("REQ answered %s", msg)
		}
	}
}

// Deletions (NIP-09) in repository sync, over real sockets: a stranger's
// deletion is refused by name and changes nothing; the author's deletion of
// an issue is kept, the issue is served no more and refused when sent
// again; the owner's deletion of the announcement (by its coordinate) ends
// the repository as a newer announcement without our service does: the
// announcement is gone, a new comment on the repository is refused, the
// deleted announcement sent again is refused, and a newer announcement
// follows the repository again.
func TestDeletionsByTheAuthorAreHonoured(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	if err := eng.Modify(settings.AddRepoService("wss://our.example")); err != nil {
		t.Fatal(err)
	}
	owner, dev, stranger := fixture.NewAuthor(95), fixture.NewAuthor(96), fixture.NewAuthor(97)
	now := time.Now().Unix()
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	ann := owner.Announce("tool", []string{"wss://our.example"}, nil, now-100)
	issue := dev.Root(reposync.KindIssue, "crash", now-90, ref)
	other := dev.Root(reposync.KindIssue, "slow", now-89, ref)
	c := dialRaw(t, url)
	for _, ev := range []*nostr.Event{ann, issue, other} {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("push kind %d: %s", ev.Kind, msg)
		}
	}
	deletion := func(a fixture.Author, createdAt int64, tags ...nostr.Tag) *nostr.Event {
		return a.Sign(&nostr.Event{Kind: reposync.KindDeletion, CreatedAt: nostr.Timestamp(createdAt), Tags: tags})
	}

	if ok, msg := c.push(deletion(stranger, now-80, nostr.Tag{"e", issue.ID})); ok || msg != "blocked: "+reposync.RuleDeletionNotAuthor {
		t.Fatalf("a stranger's deletion: %v %q, want refused with its rule", ok, msg)
	}
	if !served(t, url, issue.ID) {
		t.Fatal("the issue went after a stranger's deletion")
	}

	if ok, msg := c.push(deletion(dev, now-70, nostr.Tag{"e", issue.ID}, nostr.Tag{"k", "1621"})); !ok {
		t.Fatalf("the author's deletion refused: %s", msg)
	}
	testutil.EventuallyWithin(t, 5*time.Second, "the deleted issue no longer served", func() bool { return !served(t, url, issue.ID) })
	if !served(t, url, other.ID) {
		t.Fatal("an issue the deletion does not name went too")
	}
	if ok, msg := c.push(issue); ok || msg != "blocked: "+reposync.RuleDeletedByAuthor {
		t.Fatalf("the deleted issue sent again: %v %q, want refused as deleted", ok, msg)
	}

	if ok, msg := c.push(deletion(owner, now-60, nostr.Tag{"a", ref})); !ok {
		t.Fatalf("the owner's deletion of the announcement refused: %s", msg)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "the repository no longer followed", func() bool {
		return !served(t, url, ann.ID) && eng.RepoSyncStatus().Repos == 0
	})
	comment := dev.Tagging(1111, "a", now-50, ref)
	if ok, msg := c.push(comment); ok || !strings.HasPrefix(msg, "blocked: ") {
		t.Fatalf("a comment on the ended repository: %v %q, want refused", ok, msg)
	}
	if ok, msg := c.push(ann); ok || msg != "blocked: "+reposync.RuleDeletedByAuthor {
		t.Fatalf("the deleted announcement sent again: %v %q, want refused as deleted", ok, msg)
	}
	again := owner.Announce("tool", []string{"wss://our.example"}, nil, now-40)
	if ok, msg := c.push(again); !ok {
		t.Fatalf("a newer announcement refused: %s", msg)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "the repository followed again", func() bool { return eng.RepoSyncStatus().Repos == 1 })
	if !served(t, url, other.ID) {
		t.Fatal("the other issue went with the announcement")
	}
}

// Deletions (NIP-09) of trust events, over real sockets, with a fault relay
// as the sync relay that still holds what was deleted: a stranger's
// deletion is refused by name; the author's deletion by id of a statement
// and of a 10011, and by coordinate of a rating, are kept, and what they
// name is served no more (REQ, COUNT), leaves the answers, is refused when
// the sync fetches it again, and an older statement of the deleted slot is
// not revived from the relay (SPEC §2); a newer rating of the slot deleted
// by coordinate is kept. A deletion pushed before the statement it names
// still wins. All of it holds after a restart (the heap snapshot).
func TestTrustDeletionsByTheAuthorAreHonoured(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	root, alice, bob, stranger := fixture.NewAuthor(110), fixture.NewAuthor(111), fixture.NewAuthor(112), fixture.NewAuthor(113)
	now := time.Now().Unix()
	subject := "user:id:4242"
	statement := alice.Trust(fixture.XUser("4242"), "-1", now-10, fixture.Scopes("x.com"))
	rating := alice.Rating(fixture.XUser("4242"), "10", now-10)
	claims := alice.Claims("alice", "4242", now-10)
	remote := faultrelay.StartForTest(t, faultrelay.Mode{},
		root.Trust(fixture.P(alice.Pubkey), "1", now-20), root.Trust(fixture.P(bob.Pubkey), "1", now-20),
		statement, rating, claims)
	eng, url, stop := runEngine(t, Options{DataDir: data})
	follow(t, eng, root.Pubkey, remote.URL)
	syncPasses(t, eng, 1)
	// an answer right after the pass missed alice once in 40 runs under load
	// (also before issue 26's last session): the cause is not found yet, and
	// what this test checks is the deletions, so it waits for the answer
	testutil.EventuallyWithin(t, 10*time.Second, "alice's statement and rating in the answers", func() bool {
		a := resolve(t, eng, subject)
		return len(a.Evidence) == 1 && a.Ratings.Count == 1
	})
	deletion := func(a fixture.Author, createdAt int64, tags ...nostr.Tag) *nostr.Event {
		return a.Sign(&nostr.Event{Kind: reposync.KindDeletion, CreatedAt: nostr.Timestamp(createdAt), Tags: tags})
	}
	c := dialRaw(t, url)
	if ok, msg := c.push(deletion(stranger, now-5, nostr.Tag{"e", statement.ID})); ok || msg != "blocked: "+reposync.RuleDeletionNotAuthor {
		t.Fatalf("a stranger's deletion of alice's statement: %v %q, want refused with its rule", ok, msg)
	}
	byID := deletion(alice, now-5, nostr.Tag{"e", statement.ID}, nostr.Tag{"e", claims.ID}, nostr.Tag{"k", "32009"}, nostr.Tag{"k", "10011"})
	byCoord := deletion(alice, now-5, nostr.Tag{"a", "32014:" + alice.Pubkey + ":" + rating.Tags.GetD()})
	for _, del := range []*nostr.Event{byID, byCoord} {
		if ok, msg := c.push(del); !ok {
			t.Fatalf("alice's deletion refused: %s", msg)
		}
	}
	// bob deletes a statement before it arrives
	late := bob.Trust(fixture.XUser("4242"), "1", now-8, fixture.Scopes("x.com"))
	if ok, msg := c.push(deletion(bob, now-4, nostr.Tag{"e", late.ID})); !ok {
		t.Fatalf("bob's deletion of a statement not held yet refused: %s", msg)
	}
	if ok, msg := c.push(late); ok || msg != "blocked: "+reposync.RuleDeletedByAuthor {
		t.Fatalf("bob's deleted statement arriving after its deletion: %v %q, want refused as deleted", ok, msg)
	}
	newer := alice.Rating(fixture.XUser("4242"), "90", now-2)
	if ok, msg := c.push(newer); !ok {
		t.Fatalf("a rating newer than the deletion of its slot refused: %s", msg)
	}

	// the relay still has the deleted events, and an older statement of the deleted slot
	older := alice.Trust(fixture.XUser("4242"), "1", now-15, fixture.Scopes("x.com"))
	remote.Publish(older)
	remote.ResetCounters()
	syncPasses(t, eng, 1)
	refusedFetched := 0
	for _, r := range eng.Status().Ingest.RecentRejections {
		if strings.HasPrefix(r.Source, "sync:") && r.Reason == "blocked: "+reposync.RuleDeletedByAuthor {
			refusedFetched++
		}
	}
	// the claims wait for the daily refresh; the running strategy's own pass may refuse them too
	if sent := remote.EventsSent(); sent < 3 || refusedFetched < 2 {
		t.Fatalf("the relay sent %d events in the second pass, %d refused as deleted: want the deleted statement and rating refused, the older statement sent",
			sent, refusedFetched)
	}
	gone := []*nostr.Event{statement, rating, claims, late, older}
	check := func(when string) {
		t.Helper()
		c := dialRaw(t, url)
		for _, ev := range gone {
			if served(t, url, ev.ID) {
				t.Fatalf("%s: the deleted kind %d is served", when, ev.Kind)
			}
		}
		if n := c.count(nostr.Filter{Authors: []string{alice.Pubkey}, Kinds: []int{32009, 10011}}); n != 0 {
			t.Fatalf("%s: COUNT of alice's statements and claims %d, want 0", when, n)
		}
		for _, ev := range []*nostr.Event{byID, byCoord, newer} {
			if !served(t, url, ev.ID) {
				t.Fatalf("%s: kind %d not served, want it kept", when, ev.Kind)
			}
		}
		a := resolve(t, eng, subject)
		if len(a.Evidence) != 0 || a.Ratings.Count != 1 || a.Ratings.Average != 90 {
			t.Fatalf("%s: evidence %+v, ratings %+v: want none, and alice's newer rating alone", when, a.Evidence, a.Ratings)
		}
		if ok, msg := c.push(statement); ok || msg != "blocked: "+reposync.RuleDeletedByAuthor {
			t.Fatalf("%s: the deleted statement sent again: %v %q, want refused as deleted", when, ok, msg)
		}
	}
	check("after the sync fetched them again")
	stop()
	eng, url, _ = runEngine(t, Options{DataDir: data})
	check("after a restart")
}
