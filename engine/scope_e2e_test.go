package engine

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
)

// TestScopeProfileTakesPrecedence (issue 9 item 11): synced from our own
// server as remote, a frontier author's x.com statement and unscoped
// statement about the same account disagree. A query without a scope asks
// in the scope profile (x.com), so the scoped one answers; a query in another
// scope falls back to the unscoped one.
func TestScopeProfileTakesPrecedence(t *testing.T) {
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	remote := startRemote(t, []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Trust(fixture.XUser("900"), "1", t0),
		alice.Trust(fixture.XUser("900"), "-1", t0, fixture.Scopes("x.com")),
	})
	eng, err := Open(Options{DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, err := range []error{eng.AddRoot(root.Pubkey), eng.AddRelay(remote)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := eng.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ scope, want string }{
		{"", "distrusted"},        // the profile, x.com: the scoped statement
		{"x.com", "distrusted"},   // the same, asked explicitly
		{"other.site", "trusted"}, // the unscoped statement applies everywhere
	} {
		a, err := eng.Resolve(ctx, Query{Subject: "user:id:900", Scope: tc.scope})
		if err != nil {
			t.Fatal(err)
		}
		if a.Verdict != tc.want || len(a.Evidence) != 1 {
			t.Fatalf("scope %q: %s %+v, want %s from one statement", tc.scope, a.Verdict, a.Evidence, tc.want)
		}
	}
}
