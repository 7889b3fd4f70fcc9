package heap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"dtp-personal/engine/heap/heaptest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// snapshotHeap is a heap holding every part a snapshot keeps: a random
// graph, statements with labels, content, windows and contexts, hinted X
// accounts, claims (one revoked) and fetched claims, and a node limit hit.
func snapshotHeap(t *testing.T) *Heap {
	t.Helper()
	limits := settings.DefaultLimits()
	limits.HeapNodeLimit = 1200
	h := New(limits)
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
	if !reflect.DeepEqual(got, h) {
		for _, part := range []struct {
			name      string
			got, want any
		}{
			{"nodes", got.nodes, h.nodes}, {"nodeIdx", got.nodeIdx, h.nodeIdx}, {"edges", got.edges, h.edges},
			{"slots", got.slots, h.slots}, {"extras", got.extras, h.extras}, {"strs", got.strs, h.strs},
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
