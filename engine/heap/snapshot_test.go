package heap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"dtp-personal/engine/heap/heaptest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// snapshotHeap is a heap holding every part a snapshot keeps: a random
// graph, statements with labels, content, windows and contexts, hinted X
// accounts, claims (one revoked) and fetched claims, an author past
// slotScanMax, and a node limit hit.
func snapshotHeap(t *testing.T) *Heap {
	t.Helper()
	limits := settings.DefaultLimits()
	limits.HeapNodeLimit = 1200
	h := New(limits)
	var contexts []*validation.Statement
	for i := range 3 * slotScanMax {
		contexts = append(contexts, st(pk(10), "p", pk(11), "1", fmt.Sprintf("context %d", i), 5))
	}
	h.Apply(contexts, nil)
	heaptest.Graph{Authors: 1000, PerAuthor: 5, Seed: 9}.Statements(func(b []*validation.Statement) { h.Apply(b, nil) })
	h.Apply([]*validation.Statement{
		st(pk(1), "p", pk(2), "1", "identity", 5, window(3, 9), func(s *validation.Statement) {
			s.Labels, s.Content = []validation.Label{{Name: "friend", Description: "met"}}, "because"
		}),
		st(pk(3), "i", "user:id:77", "1", "", 5, hints(pk(4))),
		st(pk(5), "i", "user:id:78", "1", "", 5, hints(pk(6), pk(7))),
		st(pk(5), "i", "user:id:79", "", "", 5, rating),
	}, []*validation.Claims{
		{ID: pk(900), Author: pk(4), CreatedAt: 5, TwitterIDs: []string{"77"}},
		{ID: pk(901), Author: pk(6), CreatedAt: 5, TwitterIDs: []string{"78"}},
		{ID: pk(902), Author: pk(6), CreatedAt: 6},
	})
	h.ClaimsFetched([]string{pk(7), pk(8)})
	if h.Stats().LimitReason == "" {
		t.Fatal("the fixture should reach the node limit")
	}
	return h
}

// A heap loaded from its snapshot is the heap that wrote it, indexes and
// all; and it goes on as it would have (an applied statement finds its slot).
func TestSnapshotRoundTrip(t *testing.T) {
	h := snapshotHeap(t)
	path := filepath.Join(t.TempDir(), "heap.snap")
	if err := h.SaveSnapshot(path, []byte("key 1"), []byte("attached")); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	limits := settings.DefaultLimits()
	limits.HeapNodeLimit = 1200
	got, attachment, err := LoadSnapshot(path, []byte("key 1"), limits)
	if err != nil || string(attachment) != "attached" {
		t.Fatalf("load: %v, attachment %q", err, attachment)
	}
	// the opinion log starts at the loaded version; refusals are counted
	// by the running process only (Refill)
	h.opinions = opinionLog{since: h.version}
	h.refusals = got.refusals
	// the loaded heap lies in the file's memory, and says how much of it
	if want := map[bool]int64{true: int64(len(saved)), false: 0}[mapsFiles]; got.MappedBytes() != want || h.MappedBytes() != 0 {
		t.Fatalf("mapped bytes %d loaded, %d built; want %d and 0", got.MappedBytes(), h.MappedBytes(), want)
	}
	h.mapped = got.mapped
	// the slot tables hold the same slots in cells placed by the order they
	// were added: compare what they find, then the rest as it lies
	for _, x := range []*Heap{h, got} {
		if indexed := indexedSlots(t, x); indexed != got.slots.n || indexed == 0 {
			t.Fatalf("the slot table finds %d slots, holds %d (loaded) and %d (built)", indexed, got.slots.n, h.slots.n)
		}
	}
	got.slots, h.slots = slotIndex{}, slotIndex{}
	if !reflect.DeepEqual(got, h) {
		for _, part := range []struct {
			name      string
			got, want any
		}{
			{"nodes", got.nodes, h.nodes}, {"nodeIdx", got.nodeIdx, h.nodeIdx}, {"edges", got.edges, h.edges},
			{"extras", got.extras, h.extras}, {"strs", got.strs, h.strs},
			{"strIdx", got.strIdx, h.strIdx}, {"ids", got.ids, h.ids},
		} {
			if !reflect.DeepEqual(part.got, part.want) {
				t.Errorf("%s differ after the round trip", part.name)
			}
		}
		t.Fatalf("the loaded heap differs: version %d/%d, limit %q/%q", got.version, h.version, got.limitReason, h.limitReason)
	}
	replaced := st(pk(1), "p", pk(2), "-1", "identity", 6)
	for _, x := range []*Heap{h, got} {
		x.Apply([]*validation.Statement{replaced}, nil)
	}
	if a, b := resolve(h, pk(1), "p", pk(2), validation.KindTrust, "identity", "", 7), resolve(got, pk(1), "p", pk(2), validation.KindTrust, "identity", "", 7); a != b || got.Stats() != h.Stats() {
		t.Fatalf("after a replacement: %s %+v, want %s %+v", b, got.Stats(), a, h.Stats())
	}
	// the loaded heap uses the file's memory: what it changed stays in it
	if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, saved) {
		t.Fatalf("the snapshot file changed under the heap loaded from it (err %v)", err)
	}
	again, _, err := LoadSnapshot(path, []byte("key 1"), limits)
	if err != nil {
		t.Fatal(err)
	}
	if r := resolve(again, pk(1), "p", pk(2), validation.KindTrust, "identity", "", 7); r == resolve(got, pk(1), "p", pk(2), validation.KindTrust, "identity", "", 7) {
		t.Fatalf("a second load sees the first one's replacement: %s", r)
	}
}

// A snapshot of another database state, another format, or a damaged,
// cut or missing file is refused, never loaded.
func TestSnapshotRefused(t *testing.T) {
	h := snapshotHeap(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "heap.snap")
	if err := h.SaveSnapshot(path, []byte("key 1"), nil); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadSnapshot(path, []byte("key 2"), settings.DefaultLimits()); !errors.Is(err, ErrStaleSnapshot) {
		t.Errorf("another key: %v", err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x10
	for name, data := range map[string][]byte{"damaged": flipped, "cut": good[:len(good)/2], "empty": nil} {
		bad := filepath.Join(dir, name)
		if err := os.WriteFile(bad, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, _, err := LoadSnapshot(bad, []byte("key 1"), settings.DefaultLimits()); err == nil || got != nil || errors.Is(err, ErrStaleSnapshot) {
			t.Errorf("%s snapshot: %v", name, err)
		}
	}
	if _, _, err := LoadSnapshot(filepath.Join(dir, "none"), []byte("key 1"), settings.DefaultLimits()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing snapshot: %v", err)
	}
}

// BenchmarkSnapshot1M: the heap of BenchmarkBuild1M's 1,000,000 statements
// written to a snapshot and loaded back, what a start does instead of a
// build. Reports seconds and CPU seconds of each, and the file's size.
func BenchmarkSnapshot1M(b *testing.B) {
	h := New(settings.DefaultLimits())
	heaptest.Graph{Authors: 100_000, PerAuthor: 10, Seed: 3}.Statements(func(batch []*validation.Statement) { h.Apply(batch, nil) })
	path := filepath.Join(b.TempDir(), "heap.snap")
	for b.Loop() {
		start, cpu := time.Now(), testutil.ProcessCPU(b)
		if err := h.SaveSnapshot(path, []byte("key"), nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "save-s")
		b.ReportMetric((testutil.ProcessCPU(b) - cpu).Seconds(), "save-cpu-s")
		start, cpu = time.Now(), testutil.ProcessCPU(b)
		loaded, _, err := LoadSnapshot(path, []byte("key"), settings.DefaultLimits())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "load-s")
		b.ReportMetric((testutil.ProcessCPU(b) - cpu).Seconds(), "load-cpu-s")
		if loaded.Stats() != h.Stats() {
			b.Fatalf("loaded %+v, saved %+v", loaded.Stats(), h.Stats())
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
	b.ReportMetric(float64(h.Stats().Edges), "edges")
}

// indexedSlots checks that every slot of an author past slotScanMax is found
// in x's slot table at its own edge, and counts them.
func indexedSlots(t *testing.T, x *Heap) int {
	t.Helper()
	indexed := 0
	for _, n := range x.nodes {
		if len(n.out) <= slotScanMax {
			continue
		}
		for _, ei := range n.out {
			if found, ok := x.slots.find(&x.edges, slotOf(x.edges.at(ei))); !ok || found != ei {
				t.Fatalf("edge %d: the slot table finds %d, %v", ei, found, ok)
			}
			indexed++
		}
	}
	return indexed
}

// A snapshot that is not loaded (stale or damaged) is not left mapped: a
// stale one's pages stayed resident through the rebuild that replaced it.
// A loaded one stays mapped, as the heap reads from it.
func TestRefusedSnapshotIsLetGo(t *testing.T) {
	if !mapsFiles || runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/maps")
	}
	mapped := func(path string) bool {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Contains(maps, []byte(path))
	}
	h := snapshotHeap(t)
	dir := t.TempDir()
	stale, damaged, good := filepath.Join(dir, "stale.snap"), filepath.Join(dir, "damaged.snap"), filepath.Join(dir, "good.snap")
	for _, path := range []string{stale, damaged, good} {
		if err := h.SaveSnapshot(path, []byte("key 1"), nil); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(damaged, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadSnapshot(stale, []byte("key 2"), settings.DefaultLimits()); !errors.Is(err, ErrStaleSnapshot) || mapped(stale) {
		t.Errorf("stale snapshot: err %v, still mapped %v", err, mapped(stale))
	}
	if _, _, err := LoadSnapshot(damaged, []byte("key 1"), settings.DefaultLimits()); err == nil || mapped(damaged) {
		t.Errorf("damaged snapshot: err %v, still mapped %v", err, mapped(damaged))
	}
	loaded, _, err := LoadSnapshot(good, []byte("key 1"), settings.DefaultLimits())
	if err != nil || !mapped(good) {
		t.Fatalf("loaded snapshot: err %v, mapped %v", err, mapped(good))
	}
	runtime.KeepAlive(loaded)
}

// BenchmarkHintsMappedAndBuilt: HintedPubkeys, which reads every hinted X
// account's hint edges, on a built heap and on the same heap loaded from its
// snapshot (mapped where the platform maps files), in one run: the first
// question after a commit was 2-4 times slower on a server's mapped graph
// than on a built one (issue 26). Reports ms per call of each and their
// ratio.
func BenchmarkHintsMappedAndBuilt(b *testing.B) {
	h := New(settings.DefaultLimits())
	heaptest.Graph{Authors: 100_000, PerAuthor: 10, Seed: 3, Hints: true}.Statements(func(batch []*validation.Statement) { h.Apply(batch, nil) })
	path := filepath.Join(b.TempDir(), "heap.snap")
	if err := h.SaveSnapshot(path, []byte("key"), nil); err != nil {
		b.Fatal(err)
	}
	loaded, _, err := LoadSnapshot(path, []byte("key"), settings.DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	all := func(NodeID) bool { return true }
	timed := func(x *Heap) (time.Duration, int) {
		var n int
		start := time.Now()
		for range 20 {
			x.View(func(v View) { hp, _ := v.HintedPubkeys(2, all); n = len(hp) })
		}
		return time.Since(start) / 20, n
	}
	for b.Loop() {
		built, n := timed(h)
		mapped, m := timed(loaded)
		if n == 0 || n != m {
			b.Fatalf("%d hinted pubkeys built, %d loaded", n, m)
		}
		b.ReportMetric(float64(built.Microseconds())/1000, "built-ms")
		b.ReportMetric(float64(mapped.Microseconds())/1000, "loaded-ms")
		b.ReportMetric(float64(mapped)/float64(built), "loaded/built")
		b.ReportMetric(float64(n), "hinted")
	}
	runtime.KeepAlive(loaded)
}
