package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
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
