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

// A discovery batch whose X accounts hold more statements than one REQ
// pages (20 pages: here 200, the relay capping pages at 10) is fetched
// whole, and the ratings and claims after it too (issue 26: at W=100,000
// twenty popular accounts saturated their batch, and the first sync ended
// partial, relay-failed). A relay doing NIP-77 reconciles the batch instead
// of paging it; one without pages it in parts, each under the limit.
func TestSaturatedDiscoveryBatchIsFetchedWhole(t *testing.T) {
	t.Parallel()
	for _, neg := range []string{"", "NOTICE"} {
		t.Run("NegRefusal="+neg, func(t *testing.T) {
			t.Parallel()
			root, alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
			bobNpub, _ := validation.EncodeNpub(bob.Pubkey)
			evs := []*nostr.Event{
				root.Trust(fixture.P(alice.Pubkey), "1", t0),
				alice.Rating(fixture.XUser("555"), "80", t0, fixture.Scopes("x.com")),
				bob.Claims("bob", "555", t0),
			}
			// two accounts of 150 statements each: 300 in one batch
			for _, account := range []string{"555", "556"} {
				evs = append(evs, alice.Trust(fixture.XUser(account, bobNpub), "1", t0, fixture.Scopes("x.com")))
				for i := range 149 {
					evs = append(evs, fixture.NewAuthor(1000+i).Trust(fixture.XUser(account), "1", t0-int64(i), fixture.Scopes("x.com")))
				}
			}
			remote := faultrelay.StartForTest(t, faultrelay.Mode{CapLimit: 10, AdvertiseCap: true, NegRefusal: neg}, evs...)
			eng := openFollowing(t, root.Pubkey, remote.URL)
			cov, err := eng.SyncOnce(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if cov.State != status.StateComplete {
				t.Errorf("coverage %s %v, want complete", cov.State, cov.Reasons)
			}
			if got := len(storedIDs(t, eng)); got != len(evs) {
				t.Errorf("%d of the relay's %d events stored", got, len(evs))
			}
		})
	}
}
