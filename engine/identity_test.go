package engine

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// bindingOf is the one binding the answer about an X account names.
func bindingOf(t *testing.T, eng *Engine, account string) (heap.Binding, Answer) {
	t.Helper()
	a := resolve(t, eng, account)
	if len(a.Bindings) != 1 {
		t.Fatalf("%s bindings %+v, want one", account, a.Bindings)
	}
	return a.Bindings[0], a
}

// TestRevokedClaimSurvivesRestart: after a restart only the newest 10011 is
// held (alice, whose hint names bob, is a root); the claim history in the store still tells "revoked" from "unclaimed".
func TestRevokedClaimSurvivesRestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	bobNpub, _ := validation.EncodeNpub(bob.Pubkey)
	const account = "user:id:777"
	func() {
		eng, _, stop := runEngine(t, Options{DataDir: data})
		defer stop()
		// Only a frontier author's hints bind (issue 9 item 10).
		if err := eng.Modify(settings.AddRoot(alice.Pubkey)); err != nil {
			t.Fatal(err)
		}
		for _, ev := range []*nostr.Event{
			alice.Trust(fixture.XUser("777", bobNpub), "1", t0, fixture.Scopes("x.com")),
			bob.Claims("bob", "777", t0),
			bob.Claims("bob", "", t0+1), // drops the claim
		} {
			if r, err := eng.Submit(context.Background(), ev, "test"); err != nil || !r.OK() {
				t.Fatalf("submit: %+v %v", r, err)
			}
		}
		testutil.Eventually(t, "revoked before restart", func() bool {
			return len(resolve(t, eng, account).Bindings) == 1
		})
		if b, _ := bindingOf(t, eng, account); b.State != heap.StateRevoked {
			t.Fatalf("state %s before restart, want revoked", b.State)
		}
	}()
	eng, _ := startEngine(t, Options{DataDir: data})
	if b, _ := bindingOf(t, eng, account); b.State != heap.StateRevoked {
		t.Fatalf("state %s after restart, want revoked", b.State)
	}
}

// TestFetchedClaimsSurviveRestart: a pubkey whose 10011 the sync asked for
// and no relay had stays "unclaimed" after a restart, not "claims-pending".
func TestFetchedClaimsSurviveRestart(t *testing.T) {
	t.Parallel()
	root, alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	bobNpub, _ := validation.EncodeNpub(bob.Pubkey)
	const account = "user:id:777"
	remote := startRemote(t, []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Trust(fixture.XUser("777", bobNpub), "1", t0, fixture.Scopes("x.com")),
	})
	data := t.TempDir()
	open := func() *Engine {
		eng, err := Open(Options{DataDir: data, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	unclaimed := func(eng *Engine, when string) {
		t.Helper()
		b, a := bindingOf(t, eng, account)
		if b.State != heap.StateUnclaimed || slices.Contains(a.Coverage.Reasons, status.ReasonClaimsPending) {
			t.Fatalf("%s: state %s, coverage %+v; want unclaimed, not pending", when, b.State, a.Coverage)
		}
	}

	eng := open()
	for _, err := range []error{eng.Modify(settings.AddRoot(root.Pubkey)), eng.Modify(settings.AddRelay(remote))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := eng.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	unclaimed(eng, "after the pass")
	eng.Close()

	eng = open()
	defer eng.Close()
	unclaimed(eng, "after restart")
}

// TestMalformedNewerClaimRevokes (issue 9 item 8): a signed 10011 whose
// twitter tags are malformed is accepted as its author's latest 10011; it
// claims nothing, so the older claim is revoked.
func TestMalformedNewerClaimRevokes(t *testing.T) {
	t.Parallel()
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	bobNpub, _ := validation.EncodeNpub(bob.Pubkey)
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(settings.AddRoot(alice.Pubkey)); err != nil {
		t.Fatal(err)
	}
	malformed := bob.Sign(&nostr.Event{Kind: validation.KindClaims, CreatedAt: t0 + 1,
		Tags: nostr.Tags{{"i", "twitter:bob", "208"}, {"i", "twitter_id:777"}}}) // a proof on one tag only
	for _, ev := range []*nostr.Event{
		alice.Trust(fixture.XUser("777", bobNpub), "1", t0, fixture.Scopes("x.com")),
		bob.Claims("bob", "777", t0),
		malformed,
	} {
		if r, err := eng.Submit(context.Background(), ev, "test"); err != nil || !r.OK() {
			t.Fatalf("submit: %+v %v", r, err)
		}
	}
	testutil.Eventually(t, "the malformed 10011 revokes", func() bool {
		a := resolve(t, eng, "user:id:777")
		return len(a.Bindings) == 1 && a.Bindings[0].State == heap.StateRevoked
	})
}
