package store

import (
	"crypto/sha256"
	"testing"
)

// oldSlot moves the slot row of a 32009 statement (author, subject) to the
// slots table under migration 1's key, as a file written before migration 15
// holds it. The key is computed here from its definition, not by slotKey.
func oldSlot(t *testing.T, s *Store, author, subject, eventID string, createdAt int64) {
	t.Helper()
	sum := sha256.Sum256([]byte("32009:" + author + ":p:" + subject))
	if _, err := s.w.Exec(`DELETE FROM author_slots WHERE event_id = ?`, eventID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`INSERT INTO slots (slot, event_id, created_at) VALUES (?, ?, ?)`, sum[:16], eventID, createdAt); err != nil {
		t.Fatal(err)
	}
}

func slotRows(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A slot written before migration 15 still decides: an older statement is
// superseded, the same one is a duplicate, and a newer one wins and moves
// the slot's row to author_slots.
func TestSlotsOfAnOlderFileStillDecide(t *testing.T) {
	s, _ := openTemp(t)
	author, subject := hex64("author"), hex64("subject")
	held := trustEvent(author, subject, "1", 1000)
	save(t, s, held)
	oldSlot(t, s, author, subject, held.ID, 1000)

	if r := save(t, s, held); r[0].Outcome != Duplicate {
		t.Fatalf("the held winner again: %v, want duplicate", r[0].Outcome)
	}
	if r := save(t, s, trustEvent(author, subject, "0", 900)); r[0].Outcome != Superseded {
		t.Fatalf("an older statement: %v, want superseded", r[0].Outcome)
	}
	newer := trustEvent(author, subject, "0", 1100)
	if r := save(t, s, newer); r[0].Outcome != Stored || r[0].Replaced != held.ID {
		t.Fatalf("a newer statement: %+v, want stored, replacing %s", r[0], held.ID)
	}
	mustHave(t, s, held.ID, false)
	if old, moved := slotRows(t, s, "slots"), slotRows(t, s, "author_slots"); old != 0 || moved != 1 {
		t.Fatalf("rows: %d in slots, %d in author_slots; want the slot moved", old, moved)
	}
	if r := save(t, s, trustEvent(author, subject, "1", 1050)); r[0].Outcome != Superseded {
		t.Fatalf("a statement between the two: %v, want superseded", r[0].Outcome)
	}
}

// A withdrawn winner's slot (NIP-09) kept in the old table still refuses the
// older statements, and removing a held winner whose row is there frees it.
func TestOldSlotsKeepWithdrawalsAndFollowRemovals(t *testing.T) {
	s, _ := openTemp(t)
	author := hex64("author")
	withdrawn := trustEvent(author, hex64("a"), "1", 1000)
	removed := trustEvent(author, hex64("b"), "1", 1000)
	save(t, s, withdrawn, removed)
	if _, err := s.DeleteRequested([]string{withdrawn.ID}); err != nil {
		t.Fatal(err)
	}
	oldSlot(t, s, author, hex64("a"), withdrawn.ID, 1000)
	oldSlot(t, s, author, hex64("b"), removed.ID, 1000)

	if r := save(t, s, trustEvent(author, hex64("a"), "0", 999)); r[0].Outcome != Superseded {
		t.Fatalf("older than a withdrawn winner: %v, want superseded", r[0].Outcome)
	}
	if _, err := s.DeleteEvents([]string{removed.ID}); err != nil {
		t.Fatal(err)
	}
	if n := slotRows(t, s, "slots"); n != 1 {
		t.Fatalf("%d rows left in slots, want only the withdrawn one", n)
	}
	if r := save(t, s, trustEvent(author, hex64("b"), "0", 999)); r[0].Outcome != Stored {
		t.Fatalf("older than a removed winner: %v, want stored", r[0].Outcome)
	}
}
