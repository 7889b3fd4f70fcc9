package engine

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// pruneWorld is a store with a network and outsiders: the root trusts alice,
// alice trusts bob (both reached); alice's distrust of an X account hints
// hinted, whose 10011 then binds answers; ten outsiders hold bulky
// statements; an outsider's repository lists this server.
type pruneWorld struct {
	root, alice, bob, hinted, owner fixture.Author
	protected                       []*nostr.Event // never removed
	hintedTrust                     *nostr.Event   // hinted's own statement: outside, removed
	outsiders                       []*nostr.Event // removed by a prune
	repo                            []*nostr.Event // of a followed repository
}

// startPruneWorld runs an engine (with opts) holding a pruneWorld, pushed
// over a real socket, and returns the engine and the connection.
func startPruneWorld(t *testing.T, opts Options) (*Engine, *rawClient, pruneWorld) {
	t.Helper()
	t.Parallel()
	eng, wsURL := startEngine(t, opts)
	c := dialRaw(t, wsURL)
	return eng, c, newPruneWorld(t, eng, c)
}

func newPruneWorld(t *testing.T, eng *Engine, c *rawClient) pruneWorld {
	t.Helper()
	w := pruneWorld{root: fixture.NewAuthor(1), alice: fixture.NewAuthor(2), bob: fixture.NewAuthor(3),
		hinted: fixture.NewAuthor(4), owner: fixture.NewAuthor(5)}
	if err := eng.Modify(settings.AddRoot(w.root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	if err := eng.Modify(settings.AddRepoService("wss://our.example")); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	w.protected = []*nostr.Event{
		w.root.Trust(fixture.P(w.alice.Pubkey), "1", now-100),
		w.root.Trust(fixture.XUser("1"), "-1", now-100, fixture.Scopes("x.com")),
		w.alice.Trust(fixture.P(w.bob.Pubkey), "1", now-100),
		w.alice.Trust(fixture.XUser("9", npub(t, w.hinted.Pubkey)), "-1", now-100, fixture.Scopes("x.com")),
		w.bob.Rating(fixture.XUser("1"), "30", now-100),
		w.hinted.Claims("hinted", "9", now-100),
	}
	w.hintedTrust = w.hinted.Trust(fixture.XUser("2"), "1", now-100, fixture.Scopes("x.com"))
	bulk := strings.Repeat("outsider's words ", 60)
	for i := range 10 {
		o := fixture.NewAuthor(100 + i)
		for j := range 40 {
			w.outsiders = append(w.outsiders, o.Trust(fixture.XUser(strconv.Itoa(1000+i*100+j)),
				"1", now-int64(200+j), fixture.Scopes("x.com"), fixture.Content(bulk)))
		}
	}
	issue := w.owner.Root(reposync.KindIssue, "it breaks", now-50, fixture.RepoRef(w.owner.Pubkey, "tool"))
	w.repo = []*nostr.Event{w.owner.Announce("tool", []string{"wss://our.example"}, nil, now-60), issue}
	for _, ev := range append(append(append(w.protected, w.hintedTrust), w.repo...), w.outsiders...) {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("push %d: %s", ev.Kind, msg)
		}
	}
	testutil.Eventually(t, "bob in the frontier", func() bool { return eng.Status().Frontier.Size == 3 })
	return w
}

func held(t *testing.T, eng *Engine, evs ...*nostr.Event) int {
	t.Helper()
	n := 0
	for _, ev := range evs {
		if has, err := eng.store.Has(ev.ID); err != nil {
			t.Fatal(err)
		} else if has {
			n++
		}
	}
	return n
}

// Issue 29 item 3: a prune's dry run says what and how much, removes
// nothing; the prune removes the outsiders' trust events (hinted's 10011
// stays: answers use it), never the roots', the network's or a followed
// repository's; the heap forgets them; a pruned event pushed again is
// stored again (the duplicate filter does not hold it back); the file is
// smaller after.
func TestPruneRemovesOutsidersOnly(t *testing.T) {
	eng, c, w := startPruneWorld(t, Options{})
	ctx := context.Background()
	edges := eng.Status().Heap.Edges

	r, err := eng.Prune(ctx, DefaultPruneDays, true)
	if err != nil || r.Removed != 0 || r.Waiting != 11 {
		t.Fatalf("dry run, 30 days: %+v %v (10 outsiders and hinted are outside since now)", r, err)
	}
	r, err = eng.Prune(ctx, 0, true)
	if err != nil || r.Matched != len(w.outsiders)+2 || r.Removed != len(w.outsiders)+1 || r.Authors != 11 ||
		r.Bytes < int64(len(w.outsiders)*1000) || r.Kept != (KeptEvents{Answers: 1}) {
		t.Fatalf("dry run, 0 days: %+v %v", r, err)
	}
	if held(t, eng, w.outsiders...) != len(w.outsiders) {
		t.Fatal("a dry run removed events")
	}

	r, err = eng.Prune(ctx, 0, false)
	if err != nil || r.Removed != len(w.outsiders)+1 || r.VacuumMode != "incremental" || r.PagesReleased == 0 || r.FileAfter >= r.FileBefore {
		t.Fatalf("prune: %+v %v", r, err)
	}
	if n := held(t, eng, append(w.outsiders, w.hintedTrust)...); n != 0 {
		t.Fatalf("%d outsiders' events still held", n)
	}
	if n := held(t, eng, append(w.protected, w.repo...)...); n != len(w.protected)+len(w.repo) {
		t.Fatalf("%d of %d protected events held", n, len(w.protected)+len(w.repo))
	}
	if got := eng.Status().Heap.Edges; got != edges { // the heap's slots stay, emptied
		t.Fatalf("heap edges %d, before %d", got, edges)
	}
	if st, _ := eng.trust.resolver.Stats(ctx, Query{}); st.Statements != 4 || st.Ratings != 1 || st.Claims != 1 {
		t.Fatalf("graph after the prune: %+v", st.Counts)
	}
	again := w.outsiders[7]
	if ok, msg := c.push(again); !ok || msg != "" {
		t.Fatalf("a pruned event pushed again: %v %q, want stored", ok, msg)
	}
	if st, _ := eng.trust.resolver.Stats(ctx, Query{}); st.Statements != 5 {
		t.Fatalf("the heap did not take the event pushed again: %+v", st.Counts)
	}
}

// Issue 29 item 3: delete --filter removes what a NIP-01 filter matches,
// except the roots' own events, the network's, and a followed repository's;
// its dry run removes nothing; an empty filter is refused.
func TestDeleteMatchingKeepsWhatAnswersUse(t *testing.T) {
	eng, _, w := startPruneWorld(t, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		f    nostr.Filter
		want RemovalReport
	}{
		{nostr.Filter{Authors: []string{w.root.Pubkey}}, RemovalReport{Matched: 2, Kept: KeptEvents{Roots: 2}}},
		{nostr.Filter{Kinds: []int{32014, 10011}}, RemovalReport{Matched: 2, Kept: KeptEvents{Answers: 2}}},
		{nostr.Filter{Authors: []string{w.owner.Pubkey}}, RemovalReport{Matched: 2, Kept: KeptEvents{Repositories: 2}}},
		{nostr.Filter{Authors: []string{w.hinted.Pubkey}}, RemovalReport{Matched: 2, Removed: 1, Kept: KeptEvents{Answers: 1}}},
	} {
		for _, dry := range []bool{true, false} {
			r, err := eng.DeleteMatching(ctx, tc.f, dry)
			if err != nil || r.Matched != tc.want.Matched || r.Removed != tc.want.Removed || r.Kept != tc.want.Kept || r.DryRun != dry {
				t.Fatalf("delete %v (dry run %v): %+v %v, want %+v", tc.f, dry, r, err, tc.want)
			}
		}
	}
	if held(t, eng, w.hintedTrust) != 0 || held(t, eng, append(w.protected, w.repo...)...) != len(w.protected)+len(w.repo) {
		t.Fatal("delete removed the wrong events")
	}
	if _, err := eng.DeleteMatching(ctx, nostr.Filter{Limit: 5}, false); err == nil || !strings.Contains(err.Error(), "the filter is empty") {
		t.Fatalf("an empty filter: %v", err)
	}
	r, err := eng.DeleteMatching(ctx, nostr.Filter{Kinds: []int{32009}, Authors: []string{w.outsiders[0].PubKey, w.outsiders[45].PubKey}}, false)
	if err != nil || r.Removed != 80 {
		t.Fatalf("delete two outsiders' statements: %+v %v", r, err)
	}
}

// Issue 29 item 3: with the setting, a running server prunes by itself the
// people outside for longer than its days, and not under global-continuous.
func TestAutomaticPrune(t *testing.T) {
	eng, _, w := startPruneWorld(t, Options{PruneInterval: 50 * time.Millisecond})
	gone := w.outsiders[:40] // the first outsider's
	// the first outsider has been outside for three days: the loop's own
	// rounds keep the time of one already recorded
	old := time.Now().Add(-72 * time.Hour).Unix()
	for {
		if _, err := eng.store.SetOutsiders(nil, 0); err != nil {
			t.Fatal(err)
		}
		since, err := eng.store.SetOutsiders([]string{gone[0].PubKey}, old)
		if err != nil {
			t.Fatal(err)
		}
		if since[gone[0].PubKey] == old { // no round came between the two
			break
		}
	}
	if err := eng.Modify(func(s *settings.Settings) error {
		s.PruneAfterDays, s.Strategy = 2, settings.GlobalContinuous
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // several rounds
	if held(t, eng, gone...) != len(gone) {
		t.Fatal("pruned under global-continuous")
	}
	if err := eng.Modify(settings.SetStrategy(settings.FrontierInterval)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the first outsider pruned", func() bool { return held(t, eng, gone...) == 0 })
	if n := held(t, eng, w.outsiders[40:]...); n != len(w.outsiders)-40 {
		t.Fatalf("outsiders seen outside for less than 2 days lost events: %d held of %d", n, len(w.outsiders)-40)
	}
}

func npub(t *testing.T, hex string) string {
	t.Helper()
	n, err := validation.EncodeNpub(hex)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
