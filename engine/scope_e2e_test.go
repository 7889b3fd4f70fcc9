package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// TestScopeProfileTakesPrecedence (issue 9 item 11): synced from our own
// server as remote, a frontier author's x.com statement and unscoped
// statement about the same account disagree. A query without a scope asks
// in the scope profile (x.com), so the scoped one answers; a query in another
// scope falls back to the unscoped one.
func TestScopeProfileTakesPrecedence(t *testing.T) {
	t.Parallel()
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	remote := startRemote(t, []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Trust(fixture.XUser("900"), "1", t0),
		alice.Trust(fixture.XUser("900"), "-1", t0, fixture.Scopes("x.com")),
	})
	eng := openFollowing(t, root.Pubkey, remote)
	syncPasses(t, eng, 1)
	for _, tc := range []struct{ scope, want string }{
		{"", "distrusted"},        // the profile, x.com: the scoped statement
		{"x.com", "distrusted"},   // the same, asked explicitly
		{"other.site", "trusted"}, // the unscoped statement applies everywhere
	} {
		a, err := eng.Resolve(context.Background(), Query{Subject: "user:id:900", Scope: tc.scope})
		if err != nil {
			t.Fatal(err)
		}
		if a.Verdict != tc.want || len(a.Evidence) != 1 {
			t.Fatalf("scope %q: %s %+v, want %s from one statement", tc.scope, a.Verdict, a.Evidence, tc.want)
		}
	}
}

// The pass's filters take what the spec keeps, in the shapes relays serve
// from an index (issue 26): the ratings filter names no scope, so a frontier
// author's rating in another scope is fetched and refused at ingest, by its
// rule; X-account discovery asks by "#i" alone, so a statement about a
// discovered account that carries no k tag (valid: k is optional) is found.
func TestRatingsAndDiscoveryFiltersFetchWhatTheSpecKeeps(t *testing.T) {
	t.Parallel()
	root, alice, bob, carol := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3), fixture.NewAuthor(4)
	bobNpub, _ := validation.EncodeNpub(bob.Pubkey)
	otherScope := alice.Rating(fixture.P(bob.Pubkey), "70", t0, fixture.Scopes("other.site"))
	withoutK := carol.Sign(&nostr.Event{Kind: validation.KindTrust, CreatedAt: t0, Tags: nostr.Tags{
		{"d", validation.StatementD('i', "user:id:777", nil, "")}, {"i", "user:id:777"}, {"v", "-1"},
	}})
	// a relay holding what ours would refuse
	remote := faultrelay.StartForTest(t, faultrelay.Mode{},
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Trust(fixture.XUser("777", bobNpub), "1", t0, fixture.Scopes("x.com")),
		otherScope, withoutK,
	)
	eng := openFollowing(t, root.Pubkey, remote.URL)
	syncPasses(t, eng, 1)
	if !slices.Contains(storedIDs(t, eng), withoutK.ID) {
		t.Error("a statement about a discovered X account without a k tag was not fetched")
	}
	in := eng.Status().Ingest
	i := slices.IndexFunc(in.RecentRejections, func(r status.Rejection) bool { return r.EventID == otherScope.ID })
	if i < 0 || in.RecentRejections[i].Reason != "blocked: kind 32014 needs s=x.com" {
		t.Errorf("rejections %+v: want the other-scope rating fetched and refused by its rule", in.RecentRejections)
	}
}
