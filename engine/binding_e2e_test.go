package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/resolver"
	"dtp-personal/engine/validation"
)

// TestStrangerCannotRedirectTrustInAnXAccount (issue 9 item 10): the user's
// frontier trusts two X accounts. For one, a frontier author hints the owner
// and the owner's 10011 claims it: the owner joins the frontier. For the
// other, a stranger (not in the frontier) names their own key as the hint
// and publishes a matching 10011: both events are synced and held, and the
// stranger still does not join the frontier nor become the account.
func TestStrangerCannotRedirectTrustInAnXAccount(t *testing.T) {
	t.Parallel()
	root, alice, owner, stranger := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3), fixture.NewAuthor(4)
	ownerNpub, _ := validation.EncodeNpub(owner.Pubkey)
	strangerNpub, _ := validation.EncodeNpub(stranger.Pubkey)
	x := fixture.Scopes("x.com")
	attack := []*nostr.Event{
		stranger.Trust(fixture.XUser("888", strangerNpub), "1", t0, x),
		stranger.Claims("mallory", "888", t0),
	}
	remote := startRemote(t, append([]*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Trust(fixture.XUser("777", ownerNpub), "1", t0, x),
		owner.Claims("owner", "777", t0),
		root.Trust(fixture.XUser("888"), "1", t0, x), // trusted, hint-less
	}, attack...))

	eng := openFollowing(t, root.Pubkey, remote)
	// The stranger's events are also pushed, as a local client might: held
	// whatever discovery fetched.
	for _, ev := range attack {
		if r, err := eng.Submit(context.Background(), ev, "test"); err != nil || !r.OK() {
			t.Fatalf("submit: %+v %v", r, err)
		}
	}
	syncPasses(t, eng, 2) // the second pass syncs what the first bound

	fr := eng.trust.frontier.Current()
	if d, ok := fr.Depth(owner.Pubkey); !ok || d != 2 {
		t.Fatalf("owner hinted by a frontier author: depth %d in frontier %v, want 2", d, ok)
	}
	if _, ok := fr.Depth(stranger.Pubkey); ok {
		t.Fatal("a stranger's own hint put them in the frontier")
	}
	if a := resolve(t, eng, "user:id:888"); len(a.Bindings) != 0 || slices.ContainsFunc(a.Evidence, func(e resolver.Evidence) bool { return e.Subject != "user:id:888" }) {
		t.Fatalf("stranger's hint bound the account: bindings %+v evidence %+v", a.Bindings, a.Evidence)
	}
	if a := resolve(t, eng, stranger.Pubkey); a.Verdict != "none" {
		t.Fatalf("trust in the account reached the stranger: %s %+v", a.Verdict, a.Evidence)
	}
	if a := resolve(t, eng, owner.Pubkey); a.Verdict != "trusted" || len(a.Bindings) != 1 {
		t.Fatalf("owner: %s bindings %+v", a.Verdict, a.Bindings)
	}
}
