package store

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// A file written when every letter was indexed holds rows for letters no
// longer indexed; replacing such an event must remove them all.
func TestReplacingRemovesRowsOfFormerlyIndexedLetters(t *testing.T) {
	s, _ := openTemp(t)
	old := trustEvent(hex64("alice"), hex64("bob"), "1", 100)
	save(t, s, old)
	all, _ := tagHashList(old.Tags, isTagLetter)
	if _, err := s.w.Exec(`INSERT OR IGNORE INTO event_tags (hash, rid) SELECT j.value, e.rid FROM events e, json_each(?2) j WHERE e.id = ?1`, old.ID, all); err != nil {
		t.Fatal(err)
	}
	res := save(t, s, trustEvent(hex64("alice"), hex64("bob"), "0", 200))
	if res[0].Replaced != old.ID {
		t.Fatalf("save = %+v, want it to replace %s", res[0], old.ID)
	}
	checkTagIndex(t, s)
}

func TestOnlyIndexedLettersGetRows(t *testing.T) {
	s, _ := openTemp(t)
	save(t, s, mkEvent(1, hex64("a"), 1, nostr.Tag{"v", "1"}, nostr.Tag{"l", "x"}, nostr.Tag{"p", hex64("b")}))
	var n int
	if err := s.r.QueryRow(`SELECT count(*) FROM event_tags`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("event_tags rows = %d (err %v), want 1 (only #p)", n, err)
	}
}
