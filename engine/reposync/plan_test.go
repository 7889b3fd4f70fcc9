package reposync

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// openPolicy dials every relay an announcement names, with no caps.
var openPolicy = dialPolicy{allowLocal: true}

const (
	bootstrapA = "wss://a.example"
	relayC     = "wss://c.example"
	relayD     = "wss://d.example"
)

// follow runs events through the index and folds their changes into plan,
// as the self-subscriber does at the end of a window.
func follow(t *testing.T, ix *index, p *plan, evs ...*nostr.Event) []relayDelta {
	t.Helper()
	var cs []change
	for _, ev := range evs {
		if err := ix.Admit(ev); err != nil {
			t.Fatalf("admit %d: %v", ev.Kind, err)
		}
		if c, _ := ix.Apply(ev); c != nil {
			cs = append(cs, *c)
		}
	}
	return p.Apply(cs)
}

func deltaOf(ds []relayDelta, relay string) relayDelta {
	for _, d := range ds {
		if d.Relay == relay {
			return d
		}
	}
	return relayDelta{}
}

func TestPlanFollowsAnnouncementsAndRoots(t *testing.T) {
	t.Parallel()
	ix := newIndex([]string{ourService}, settings.NormalizeRelayURL)
	p := newPlan([]string{ourService}, bootstrapA, openPolicy)
	ref := repoRef(fixture.RepoRef(owner.Pubkey, "tool"))

	ds := follow(t, ix, p, owner.Announce("tool", []string{ourService, relayB, "WSS://C.example/"}, nil, 100))
	if b := deltaOf(ds, relayB); !b.Open || !slices.Equal(b.Refs, []repoRef{ref}) {
		t.Fatalf("B after the announcement: %+v", b)
	}
	if got := p.Relays(); !slices.Equal(got, []string{bootstrapA, relayB, relayC}) {
		t.Fatalf("sync relays %v", got)
	}

	issue := stranger.Root(KindIssue, "bug", 110, string(ref))
	ds = follow(t, ix, p, issue)
	for _, r := range []string{relayB, relayC} {
		if d := deltaOf(ds, r); d.Open || !slices.Equal(d.Roots, []string{issue.ID}) {
			t.Fatalf("%s after a new issue: %+v, want only the incremental root", r, d)
		}
	}
	if d := deltaOf(ds, bootstrapA); d.Relay != "" {
		t.Fatalf("bootstrap relay touched by a root of a repository it does not list: %+v", d)
	}

	// a newer announcement naming D and dropping C
	ds = follow(t, ix, p, owner.Announce("tool", []string{ourService, relayB, relayD}, nil, 120))
	if d := deltaOf(ds, relayD); !d.Open || !slices.Equal(d.Roots, []string{issue.ID}) || !slices.Equal(d.Refs, []repoRef{ref}) {
		t.Fatalf("D: %+v, want a new connection with the repository's history", d)
	}
	if d := deltaOf(ds, relayC); !d.Close {
		t.Fatalf("C: %+v, want closed", d)
	}

	// the owner ends the repository: B and D close, the bootstrap relay stays
	ds = p.Apply([]change{*ix.End(ref)})
	if !deltaOf(ds, relayB).Close || !deltaOf(ds, relayD).Close || deltaOf(ds, bootstrapA).Close {
		t.Fatalf("after the end: %+v", ds)
	}
	if got := p.Relays(); !slices.Equal(got, []string{bootstrapA}) {
		t.Fatalf("sync relays after the end: %v", got)
	}
}

// The maps rebuilt from the database equal the maps the self-subscriber
// kept while the events arrived.
func TestLoadRebuildsTheSameMaps(t *testing.T) {
	t.Parallel()
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := newIndex([]string{ourService}, settings.NormalizeRelayURL)
	live := newPlan([]string{ourService}, bootstrapA, openPolicy)
	ref1 := fixture.RepoRef(owner.Pubkey, "tool")
	ref2 := fixture.RepoRef(maint.Pubkey, "lib")
	evs := []*nostr.Event{
		owner.Announce("tool", []string{ourService, relayB}, []string{maint.Pubkey}, 100),
		maint.Announce("lib", []string{ourService, relayC, relayB}, nil, 100),
		maint.Announce("tool", []string{relayB}, nil, 100), // maintainer's, not listing us
		stranger.Root(KindPatch, "two repos", 110, ref1, ref2),
		stranger.Root(KindIssue, "one", 111, ref2),
		owner.Announce("tool", []string{ourService, relayD}, []string{maint.Pubkey}, 120), // moves to D
	}
	for _, ev := range evs {
		follow(t, ix, live, ev)
		if _, err := st.SaveBatch([]*nostr.Event{ev}); err != nil {
			t.Fatal(err)
		}
	}
	_, loaded, err := load(context.Background(), st, []string{ourService}, bootstrapA, openPolicy, settings.NormalizeRelayURL)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sortedMaps(loaded), sortedMaps(live)) {
		t.Fatalf("rebuilt maps differ:\nloaded %+v\nlive   %+v", sortedMaps(loaded), sortedMaps(live))
	}
	if n := live.RootCount(); n != 3 {
		t.Fatalf("root pairs %d, want 3 (the patch under both repositories, the issue under one)", n)
	}
}

// sortedMaps renders the plan's two maps in a comparable form.
func sortedMaps(p *plan) map[string][]string {
	out := map[string][]string{}
	for _, ref := range p.Repos() {
		out["repo "+string(ref)] = p.Roots(ref)
	}
	for _, r := range p.Relays() {
		var refs []string
		for _, ref := range p.RelayRepos(r) {
			refs = append(refs, string(ref))
		}
		out["relay "+r] = refs
	}
	return out
}

// The window opens at its first change and is not extended by later ones.
func TestWindowStartsAtFirstChangeAndDoesNotReset(t *testing.T) {
	t.Parallel()
	clock := faultrelay.NewClock(time.Unix(1000, 0))
	flushed := make(chan []change, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWindow(ctx, clock, windowLength, func(cs []change) { flushed <- cs })

	w.Add(change{Root: "1"})
	clock.Advance(3 * time.Second)
	w.Add(change{Root: "2"})
	clock.Advance(1999 * time.Millisecond) // 4.999 s after the first change
	select {
	case cs := <-flushed:
		t.Fatalf("flushed early: %v", cs)
	case <-time.After(50 * time.Millisecond):
	}
	clock.Advance(time.Millisecond) // 5 s after the first, 2 s after the second
	select {
	case cs := <-flushed:
		if len(cs) != 2 {
			t.Fatalf("flushed %d changes, want both", len(cs))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("window did not close 5 s after its first change")
	}
	w.Add(change{Root: "3"})
	clock.Advance(windowLength)
	select {
	case cs := <-flushed:
		if len(cs) != 1 || cs[0].Root != "3" {
			t.Fatalf("second window: %v", cs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second window did not close")
	}
}

// The caps keep the relays most followed repositories share: with one relay
// per repository, each of three repositories takes the relay all three
// name, not its own; with two relays in all, the one two repositories share
// comes next. A new policy reassigns the relays: the caps lifted, every
// relay opens. Each relay not taken is listed with its cap.
func TestPlanCapsKeepTheMostSharedRelays(t *testing.T) {
	t.Parallel()
	ix := newIndex([]string{ourService}, settings.NormalizeRelayURL)
	p := newPlan([]string{ourService}, "", dialPolicy{allowLocal: true, maxRelays: 2, maxPerRepo: 1})
	const shared, pair, own = "wss://z-shared.example", "wss://y-pair.example", "wss://a-own.example"
	follow(t, ix, p,
		owner.Announce("one", []string{ourService, own, pair, shared}, nil, 100),
		owner.Announce("two", []string{ourService, pair, shared}, nil, 100),
		owner.Announce("three", []string{ourService, shared}, nil, 100))
	if got := p.Relays(); !slices.Equal(got, []string{shared}) {
		t.Fatalf("one relay per repository: %v, want only the relay all three share", got)
	}
	reasons := map[string]string{}
	for _, r := range p.Refused() {
		reasons[r.URL] = r.Reason
	}
	if reasons[own] != RefusedPerRepo || reasons[pair] != RefusedPerRepo || len(reasons) != 2 {
		t.Fatalf("refused %v, want the other two past the per-repository cap", reasons)
	}

	p.SetPolicy(dialPolicy{allowLocal: true, maxRelays: 2, maxPerRepo: 3})
	ds := p.Apply(nil)
	if got := p.Relays(); !slices.Equal(got, []string{pair, shared}) {
		t.Fatalf("two relays in all: %v, want the two most shared", got)
	}
	if d := deltaOf(ds, pair); !d.Open || len(d.Refs) != 2 {
		t.Fatalf("the pair's relay under the new policy: %+v, want opened for its two repositories", d)
	}
	if r := p.Refused(); len(r) != 1 || r[0].URL != own || r[0].Reason != RefusedRepoCap {
		t.Fatalf("refused %+v, want the own relay past the cap on repository relays", r)
	}

	p.SetPolicy(openPolicy)
	if ds := p.Apply(nil); !deltaOf(ds, own).Open || len(p.Refused()) != 0 {
		t.Fatalf("caps lifted: %+v, refused %+v; want the last relay opened and none refused", ds, p.Refused())
	}
}

// The live groups keep a layer's filters over the same references together
// (a group is never split across REQs): the #e, #E and #q filters over one
// chunk of roots are one group, so a comment naming its root by e and E is
// sent once however the REQs are packed.
func TestLiveGroupsKeepSameReferencesTogether(t *testing.T) {
	t.Parallel()
	var roots []string
	for i := range 150 { // two chunks of roots
		roots = append(roots, fmt.Sprintf("%064x", i))
	}
	var filters []layerFilter
	for _, chunk := range [][]string{roots[:100], roots[100:]} {
		for _, letter := range []string{"e", "E", "q"} {
			filters = append(filters, layerFilter{layerRoots, nostr.Filter{Tags: nostr.TagMap{letter: chunk}}})
		}
	}
	got := groups(filters, 1000)
	if len(got) != 2 || len(got[0].Filters) != 3 || len(got[1].Filters) != 3 {
		t.Fatalf("%d groups, want two of three filters (one per chunk of roots)", len(got))
	}
	if f := got[1].Filters[1]; f.Since == nil || *f.Since != 1000 || len(f.Tags["E"]) != 50 {
		t.Fatalf("second group's #E filter %v, want the second chunk since 1000", f)
	}
}
