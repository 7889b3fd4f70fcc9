package store

import "testing"

// The heap state moves with every change to what the trust graph is built
// from, whichever path makes it, and with nothing else; each database has
// its own id.
func TestHeapStateMovesWithTheTrustData(t *testing.T) {
	s, _ := openTemp(t)
	other, _ := openTemp(t)
	state := func(s *Store) (string, int64) {
		t.Helper()
		db, gen, err := s.HeapState()
		if err != nil {
			t.Fatal(err)
		}
		return db, gen
	}
	db, gen := state(s)
	if otherDB, _ := state(other); db == "" || otherDB == db {
		t.Fatalf("database ids %q and %q", db, otherDB)
	}
	moved := func(what string, change func()) {
		t.Helper()
		change()
		if _, now := state(s); now == gen {
			t.Errorf("%s left the generation at %d", what, gen)
		} else {
			gen = now
		}
	}
	author := hex64("author")
	old := trustEvent(author, hex64("subject"), "1", 1_700_000_000)
	moved("a stored event", func() { save(t, s, old) })
	moved("a newer winner replacing it", func() { save(t, s, trustEvent(author, hex64("subject"), "-1", 1_700_000_001)) })
	moved("a 10011", func() { save(t, s, mkEvent(10011, author, 1_700_000_000, []string{"i", "twitter_id:5"})) })
	moved("fetched claims", func() {
		if err := s.RecordClaimsFetched([]string{author}, 1_700_000_000); err != nil {
			t.Fatal(err)
		}
	})
	if err := setSetting(s, "strategy", "global-continuous"); err != nil {
		t.Fatal(err)
	}
	if d, now := state(s); d != db || now != gen {
		t.Errorf("a setting moved the heap state to %s %d", d, now)
	}
}
