package reposync

import (
	"errors"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

const (
	ourService = "wss://our.example"
	relayB     = "wss://b.example"
)

var (
	owner    = fixture.NewAuthor(1)
	maint    = fixture.NewAuthor(2) // listed by the owner
	maint2   = fixture.NewAuthor(3) // listed by maint: second level
	stranger = fixture.NewAuthor(4)
)

// heldIndex holds owner's repository "tool" (listing us and B, maintainer
// maint), maint's announcement of "tool" (maintainer maint2, not listing
// us) and one root issue.
func heldIndex(t *testing.T) (*index, *nostr.Event) {
	t.Helper()
	ix := newIndex([]string{ourService}, settings.NormalizeRelayURL)
	for _, ev := range []*nostr.Event{
		owner.Announce("tool", []string{"WSS://OUR.example/", relayB}, []string{maint.Pubkey}, 100),
		maint.Announce("tool", []string{relayB}, []string{maint2.Pubkey}, 100),
	} {
		if err := ix.Admit(ev); err != nil {
			t.Fatalf("setup: %v", err)
		}
		ix.Apply(ev)
	}
	issue := stranger.Root(KindIssue, "bug", 110, fixture.RepoRef(owner.Pubkey, "tool"))
	if err := ix.Admit(issue); err != nil {
		t.Fatalf("setup issue: %v", err)
	}
	ix.Apply(issue)
	return ix, issue
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	ix, issue := heldIndex(t)
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	unknownRef := fixture.RepoRef(stranger.Pubkey, "other")
	cases := []struct {
		name string
		ev   *nostr.Event
		rule string // "" = accepted
	}{
		{"state from the owner", owner.RepoState("tool", 120), ""},
		{"state from a direct maintainer", maint.RepoState("tool", 120), ""},
		{"state from a second-level maintainer", maint2.RepoState("tool", 120), ""},
		{"state from a stranger", stranger.RepoState("tool", 120), "blocked: " + RuleNotMaintainer},
		{"state of a repository not held", owner.RepoState("other", 120), "blocked: " + RuleNotAboutRepo},
		{"maintainer's announcement without our service", maint2.Announce("tool", []string{relayB}, nil, 130), ""},
		{"stranger's announcement without our service", stranger.Announce("tool", []string{relayB}, nil, 130), "blocked: " + RuleNotListed},
		{"announcement listing us", stranger.Announce("new", []string{ourService}, nil, 130), ""},
		{"announcement without d", stranger.Sign(&nostr.Event{Kind: KindAnnouncement, CreatedAt: 1, Tags: nostr.Tags{{"relays", ourService}}}), "invalid: " + RuleAnnouncementNoD},
		{"patch naming the held repository", stranger.Root(KindPatch, "diff", 130, ref), ""},
		{"patch naming two repositories, one held", stranger.Root(KindPatch, "diff", 130, unknownRef, ref), ""},
		{"patch naming an unknown repository", stranger.Root(KindPatch, "diff", 130, unknownRef), "blocked: " + RuleNotAboutRepo},
		{"comment on the held root by E", stranger.Tagging(1111, "E", 130, issue.ID), ""},
		{"status on the held root by e", owner.Tagging(1630, "e", 130, issue.ID), ""},
		{"quote of the held root by q", stranger.Tagging(1, "q", 130, issue.ID), ""},
		{"reaction naming the repository by A", stranger.Tagging(7, "A", 130, ref), ""},
		{"comment on an unknown root", stranger.Tagging(1111, "E", 130, stranger.Pubkey), "blocked: " + RuleNotAboutRepo},
		{"a note about nothing", stranger.Sign(&nostr.Event{Kind: 1, CreatedAt: 130}), "blocked: kind 1 is not kept by this server"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ix.Admit(c.ev)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.rule {
				t.Fatalf("Admit = %q, want %q", got, c.rule)
			}
		})
	}
}

func TestOwnersNewerAnnouncementWithoutUsEndsTheRepository(t *testing.T) {
	t.Parallel()
	ix, _ := heldIndex(t)
	older := owner.Announce("tool", []string{relayB}, nil, 90)
	var r *refusal
	if err := ix.Admit(older); !errors.As(err, &r) || r.Rule != RuleNotListed || r.Ends != nil {
		t.Fatalf("older announcement without us: %v (ends %v), want a plain refusal", err, r)
	}
	newer := owner.Announce("tool", []string{relayB}, nil, 200)
	if err := ix.Admit(newer); !errors.As(err, &r) || r.Rule != RuleNotListed || r.Ends == nil {
		t.Fatalf("newer announcement without us: %v, want a refusal that ends the repository", err)
	}
	ix.End(r.Ends.Ref())
	if a, held := ix.Announcement(r.Ends.Ref()); held {
		t.Fatalf("held after the end: %+v", a)
	}
	if err := ix.Admit(owner.RepoState("tool", 210)); err == nil {
		t.Fatal("state of an ended repository accepted")
	}
}

func TestOffWithoutServiceKeepsTheOldRefusal(t *testing.T) {
	t.Parallel()
	ix := newIndex(nil, settings.NormalizeRelayURL)
	err := ix.Admit(owner.Announce("tool", []string{ourService}, nil, 1))
	var rej *validation.Rejection
	if !errors.As(err, &rej) || err.Error() != "blocked: kind 30617 is not kept by this server" {
		t.Fatalf("profile off: %v", err)
	}
}

func TestRefusalsSayWhatTheyWaitFor(t *testing.T) {
	t.Parallel()
	ix := newIndex([]string{ourService}, settings.NormalizeRelayURL)
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	var r *refusal
	comment := stranger.Tagging(1111, "a", 10, ref)
	if err := ix.Admit(comment); !errors.As(err, &r) || len(r.Wants) != 1 || r.Wants[0] != ref {
		t.Fatalf("comment before its repository: %v wants %v", err, r)
	}
	if err := ix.Admit(maint.RepoState("tool", 10)); !errors.As(err, &r) || r.Wants[0] != dKey("tool") {
		t.Fatalf("state before its repository: %v", err)
	}
}
