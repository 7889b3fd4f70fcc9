package engine

import (
	"context"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
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
