package reposync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// The design's scale (GRASP-02): 1,000 repositories with 50 root events each,
// 100 sync relays.
const (
	benchRepos    = 1000
	benchRoots    = 50
	benchRelays   = 100
	relaysPerRepo = 3
	benchNewRoots = 1000
)

func fakeID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// designScaleEvents are unsigned events (Load never verifies: the store
// holds only verified events) for the design's scale.
func designScaleEvents() (anns, roots []*nostr.Event) {
	for i := range benchRepos {
		owner := fakeID("owner " + strconv.Itoa(i%200))
		relays := nostr.Tag{"relays", ourService}
		for k := range relaysPerRepo {
			relays = append(relays, fmt.Sprintf("wss://relay%d.example", (i*7+k*31)%benchRelays))
		}
		d := "repo" + strconv.Itoa(i)
		anns = append(anns, &nostr.Event{ID: fakeID("ann " + d), PubKey: owner, Kind: KindAnnouncement,
			CreatedAt: 100, Tags: nostr.Tags{{"d", d}, relays, {"maintainers", fakeID("m" + d)}}})
		ref := "30617:" + owner + ":" + d
		for j := range benchRoots {
			roots = append(roots, &nostr.Event{ID: fakeID(ref + "#" + strconv.Itoa(j)), PubKey: fakeID("author"),
				Kind: KindPatch, CreatedAt: 200, Tags: nostr.Tags{{"a", ref}}})
		}
	}
	return anns, roots
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkDesignScale prints the start-up build time of the two maps (and
// the acceptance index) from a real store, their memory, the time of one
// 5 s window of 1,000 new root events, and the filters per relay.
func BenchmarkDesignScale(b *testing.B) {
	st, err := store.Open(filepath.Join(b.TempDir(), "dtp.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	anns, roots := designScaleEvents()
	for _, batch := range [][]*nostr.Event{anns, roots} {
		for i := 0; i < len(batch); i += 1000 {
			if _, err := st.SaveBatch(batch[i:min(i+1000, len(batch))]); err != nil {
				b.Fatal(err)
			}
		}
	}
	services := []string{ourService}
	for b.Loop() {
		before := heapInUse()
		start := time.Now()
		ix, plan, err := load(context.Background(), st, services, bootstrapA, openPolicy, settings.NormalizeRelayURL)
		if err != nil {
			b.Fatal(err)
		}
		build := time.Since(start)
		mem := heapInUse() - before

		// one window: 1,000 new root events spread over the repositories
		refs := plan.Repos()
		start = time.Now()
		var cs []change
		for i := range benchNewRoots {
			ev := &nostr.Event{ID: fakeID("new " + strconv.Itoa(i)), PubKey: fakeID("author"), Kind: KindIssue,
				CreatedAt: 300, Tags: nostr.Tags{{"a", string(refs[i%len(refs)])}}}
			if err := ix.Admit(ev); err != nil {
				b.Fatal(err)
			}
			if c, _ := ix.Apply(ev); c != nil {
				cs = append(cs, *c)
			}
		}
		deltas := plan.Apply(cs)
		window := time.Since(start)

		maxFilters, total := 0, 0
		for _, r := range plan.Relays() {
			n := len(relayFilters(plan, ix, r))
			total += n
			maxFilters = max(maxFilters, n)
		}
		b.ReportMetric(build.Seconds()*1000, "build-ms")
		b.ReportMetric(float64(mem)/(1<<20), "maps-MiB")
		b.ReportMetric(window.Seconds()*1000, "window-ms")
		b.ReportMetric(float64(total)/float64(len(plan.Relays())), "filters/relay")
		b.Logf("repos %d, root pairs %d, relays %d: build %v, memory %.1f MiB, window of %d roots %v (%d relays touched), filters per relay avg %.1f max %d",
			len(refs), plan.RootCount(), len(plan.Relays()), build, float64(mem)/(1<<20), benchNewRoots, window,
			len(deltas), float64(total)/float64(len(plan.Relays())), maxFilters)
	}
}
