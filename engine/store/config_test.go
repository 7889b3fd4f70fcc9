package store

import (
	"fmt"
	"slices"
	"testing"

	"dtp-personal/engine/health"
)

func revision(t *testing.T, s *Store) int64 {
	t.Helper()
	n, err := s.Revision()
	if err != nil {
		t.Fatalf("Revision: %v", err)
	}
	return n
}

// A CLI process and a running server share the file: changes made through
// one Store are visible to a second Store, and its revision moves.
func TestSettingsAndRevisionAcrossStores(t *testing.T) {
	server, path := openTemp(t)
	cli, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	if _, ok, err := server.Setting("strategy"); err != nil || ok {
		t.Fatalf("unset setting: ok %v err %v", ok, err)
	}
	r0 := revision(t, server)

	if err := setSetting(cli, "strategy", "global-continuous"); err != nil {
		t.Fatal(err)
	}
	v, ok, err := server.Setting("strategy")
	if err != nil || !ok || v != "global-continuous" {
		t.Fatalf("server sees %q ok %v err %v", v, ok, err)
	}
	r1 := revision(t, server)
	if r1 <= r0 {
		t.Fatalf("revision %d after a setting change, was %d", r1, r0)
	}

	if err := setSetting(cli, "strategy", "global-continuous"); err != nil {
		t.Fatal(err)
	}
	if r := revision(t, server); r != r1 {
		t.Fatalf("rewriting the same value moved the revision %d -> %d", r1, r)
	}

	steps := []struct {
		name string
		do   func() error
	}{
		{"overwrite setting", func() error { return setSetting(cli, "strategy", "frontier-interval") }},
		{"add relay", func() error { return addRelay(cli, "wss://relay.example") }},
		{"remove relay", func() error { return removeRelay(cli, "wss://relay.example") }},
		{"add root", func() error { return addRoot(cli, hex64("root")) }},
		{"remove root", func() error { return removeRoot(cli, hex64("root")) }},
	}
	prev := r1
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		r := revision(t, server)
		if r <= prev {
			t.Fatalf("%s: revision %d, was %d", st.name, r, prev)
		}
		prev = r
	}

	// Health and cursors are sync state, not configuration.
	if err := cli.SaveRelayHealth(health.ProfileTrust, health.Health{URL: "wss://x", State: "healthy"}); err != nil {
		t.Fatal(err)
	}
	if err := cli.SaveCursors([]Cursor{{CursorKey: CursorKey{"wss://x", "trust", hex64("a")}, LastSeenCreatedAt: 5}}); err != nil {
		t.Fatal(err)
	}
	if r := revision(t, server); r != prev {
		t.Fatalf("sync state moved the revision %d -> %d", prev, r)
	}
}

func TestRelays(t *testing.T) {
	s, _ := openTemp(t)
	for _, u := range []string{"wss://b.example", "wss://a.example", "wss://b.example"} {
		if err := addRelay(s, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := addRelay(s, ""); err == nil {
		t.Fatal("empty relay url accepted")
	}
	relays, err := s.Relays()
	if err != nil || !slices.Equal(relays, []string{"wss://a.example", "wss://b.example"}) {
		t.Fatalf("Relays = %v, err %v", relays, err)
	}

	h := health.Health{URL: "wss://a.example", State: "backoff", ConsecutiveFailures: 3, FirstFailureAt: 10,
		LastAttemptAt: 11, LastSuccessAt: 5, LastConnectedAt: 4, NextRetryAt: 20, LastError: "dial: refused",
		EventsFetched: 1234, OldestReached: 100, NewestReached: 200}
	if err := s.SaveRelayHealth(health.ProfileTrust, h); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.RelayHealth(health.ProfileTrust, h.URL)
	if err != nil || !ok || got != h {
		t.Fatalf("RelayHealth = %+v ok %v err %v, want %+v", got, ok, err, h)
	}
	h.State, h.ConsecutiveFailures, h.LastError = "healthy", 0, ""
	if err := s.SaveRelayHealth(health.ProfileTrust, h); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.RelayHealth(health.ProfileTrust, h.URL); got != h {
		t.Fatalf("after update %+v, want %+v", got, h)
	}
	if err := s.SaveRelayHealth(health.ProfileTrust, health.Health{URL: "wss://b.example", State: "dead"}); err != nil {
		t.Fatal(err)
	}

	author := hex64("author")
	cs := []Cursor{
		{CursorKey: CursorKey{"wss://a.example", "trust", author}, LastSeenCreatedAt: 1},
		{CursorKey: CursorKey{"wss://a.example", "claims", author}, LastSeenCreatedAt: 2},
		{CursorKey: CursorKey{"wss://b.example", "trust", author}, LastSeenCreatedAt: 3},
	}
	if err := s.SaveCursors(cs); err != nil {
		t.Fatal(err)
	}

	if err := removeRelay(s, "wss://a.example"); err != nil {
		t.Fatal(err)
	}
	if relays, _ := s.Relays(); !slices.Equal(relays, []string{"wss://b.example"}) {
		t.Fatalf("after remove: %v", relays)
	}
	if _, ok, _ := s.RelayHealth(health.ProfileTrust, "wss://a.example"); ok {
		t.Fatal("health of removed relay survived")
	}
	for _, scope := range []string{"trust", "claims"} {
		if m, _ := s.Cursors("wss://a.example", scope, nil); len(m) != 0 {
			t.Fatalf("cursors of removed relay survived in %s: %v", scope, m)
		}
	}
	if _, ok, _ := s.RelayHealth(health.ProfileTrust, "wss://b.example"); !ok {
		t.Fatal("health of the other relay was dropped")
	}
	if m, _ := s.Cursors("wss://b.example", "trust", nil); m[author].LastSeenCreatedAt != 3 {
		t.Fatalf("cursor of the other relay was dropped: %v", m)
	}
}

func TestRoots(t *testing.T) {
	s, _ := openTemp(t)
	r1, r2 := hex64("r1"), hex64("r2")
	for _, r := range []string{r2, r1, r2} {
		if err := addRoot(s, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"npub1xyz", r1[:63], "A" + r1[1:]} {
		if err := addRoot(s, bad); err == nil {
			t.Fatalf("AddRoot(%q) accepted", bad)
		}
	}
	roots, err := s.Roots()
	if err != nil || !slices.Equal(roots, sortedCopy([]string{r1, r2})) {
		t.Fatalf("Roots = %v, err %v", roots, err)
	}
	if err := removeRoot(s, r1); err != nil {
		t.Fatal(err)
	}
	if roots, _ := s.Roots(); !slices.Equal(roots, []string{r2}) {
		t.Fatalf("after remove: %v", roots)
	}
}

func TestCursors(t *testing.T) {
	s, _ := openTemp(t)
	const relay, other = "wss://r.example", "wss://o.example"
	// More authors than one statement binds, to cross the chunk boundary.
	var authors []string
	var cs []Cursor
	for i := 0; i < authorChunk+20; i++ {
		a := hex64("author", i)
		authors = append(authors, a)
		cs = append(cs, Cursor{CursorKey: CursorKey{relay, "trust", a}, LastSeenCreatedAt: int64(i), LastEoseAt: 100})
	}
	cs = append(cs,
		Cursor{CursorKey: CursorKey{relay, "ratings", authors[0]}, LastSeenCreatedAt: 7},
		Cursor{CursorKey: CursorKey{other, "trust", authors[0]}, LastSeenCreatedAt: 8},
		Cursor{CursorKey: CursorKey{other, "trust", authors[1]}, LastSeenCreatedAt: 9})
	if err := s.SaveCursors(cs); err != nil {
		t.Fatal(err)
	}

	got, err := s.Cursors(relay, "trust", authors)
	if err != nil || len(got) != len(authors) {
		t.Fatalf("Cursors returned %d (err %v), want %d", len(got), err, len(authors))
	}
	last := authors[len(authors)-1]
	if c := got[last]; c.LastSeenCreatedAt != int64(len(authors)-1) || c.Relay != relay || c.Scope != "trust" || c.Author != last {
		t.Fatalf("cursor of last author: %+v", c)
	}

	// Upsert: retry state replaces the row, a missing author stays absent.
	failed := Cursor{CursorKey: CursorKey{relay, "trust", authors[0]}, LastSeenCreatedAt: 0, LastEoseAt: 100,
		Attempts: 2, NextRetryAt: 500, LastError: "saturated before EOSE"}
	if err := s.SaveCursors([]Cursor{failed}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Cursors(relay, "trust", []string{authors[0], hex64("unknown")})
	if err != nil || len(got) != 1 || got[authors[0]] != failed {
		t.Fatalf("after upsert: %+v, err %v", got, err)
	}
	if got, _ := s.Cursors(relay, "ratings", nil); len(got) != 1 || got[authors[0]].LastSeenCreatedAt != 7 {
		t.Fatalf("ratings scope: %+v", got)
	}

	// Deleting for authors covers every relay and scope, and only those authors.
	if err := s.DeleteCursorsForAuthors(authors[:authorChunk+1]); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct{ relay, scope string }{{relay, "trust"}, {relay, "ratings"}, {other, "trust"}} {
		got, err := s.Cursors(k.relay, k.scope, nil)
		if err != nil {
			t.Fatal(err)
		}
		for a := range got {
			if slices.Index(authors, a) <= authorChunk {
				t.Fatalf("%s/%s still has a cursor for deleted author %s", k.relay, k.scope, a[:8])
			}
		}
	}
	got, _ = s.Cursors(relay, "trust", nil)
	if want := len(authors) - authorChunk - 1; len(got) != want {
		t.Fatalf("%d trust cursors remain, want %d", len(got), want)
	}
}

func TestOpenRejectsBadPath(t *testing.T) {
	for _, p := range []string{"", "/tmp/x?mode=ro"} {
		if s, err := Open(p); err == nil {
			s.Close()
			t.Fatalf("Open(%q) succeeded", p)
		}
	}
	if s, err := Open(fmt.Sprintf("%s/missing-dir/db.sqlite", t.TempDir())); err == nil {
		s.Close()
		t.Fatal("Open in a missing directory succeeded")
	}
}
