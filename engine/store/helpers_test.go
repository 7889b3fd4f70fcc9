package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// hex64 derives a stable, real-looking 64-hex string (pubkeys in tests).
func hex64(parts ...any) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(parts...)))
	return hex.EncodeToString(sum[:])
}

var eventSeq atomic.Int64

// mkEvent builds an unsigned event with its real NIP-01 id; a sequence number
// in the content keeps otherwise identical events distinct.
func mkEvent(kind int, pubkey string, createdAt int64, tags ...nostr.Tag) *nostr.Event {
	return mkEventContent(fmt.Sprintf("event %d", eventSeq.Add(1)), kind, pubkey, createdAt, tags...)
}

func mkEventContent(content string, kind int, pubkey string, createdAt int64, tags ...nostr.Tag) *nostr.Event {
	ev := &nostr.Event{Kind: kind, PubKey: pubkey, CreatedAt: nostr.Timestamp(createdAt), Tags: nostr.Tags(tags), Content: content}
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	ev.ID = ev.GetID()
	ev.Sig = hex64("sig", ev.ID) + hex64("sig2", ev.ID)
	return ev
}

// trustEvent is a 32009-shaped statement about subject with ~10 tags.
func trustEvent(author, subject, value string, createdAt int64) *nostr.Event {
	return mkEvent(32009, author, createdAt,
		nostr.Tag{"d", "p:" + subject},
		nostr.Tag{"p", subject},
		nostr.Tag{"v", value},
		nostr.Tag{"c", "nostr:dev"},
		nostr.Tag{"s", "x.com"},
		nostr.Tag{"k", "pubkey"},
		nostr.Tag{"l", "honest"},
		nostr.Tag{"l", "expert"},
		nostr.Tag{"x", "1700000000"},
		nostr.Tag{"alt", "trust statement"},
	)
}

func save(t testing.TB, s *Store, evs ...*nostr.Event) []SaveResult {
	t.Helper()
	res, err := s.SaveBatch(evs)
	if err != nil {
		t.Fatalf("SaveBatch: %v", err)
	}
	if len(res) != len(evs) {
		t.Fatalf("SaveBatch returned %d results for %d events", len(res), len(evs))
	}
	return res
}

func mustHave(t testing.TB, s *Store, id string, want bool) {
	t.Helper()
	got, err := s.Has(id)
	if err != nil {
		t.Fatalf("Has: %v", err)
	}
	if got != want {
		t.Fatalf("Has(%s) = %v, want %v", id[:8], got, want)
	}
}

// checkTagIndex asserts that event_tags holds exactly the indexed tags of the
// stored events: nothing left behind by deleted losers, nothing missing.
func checkTagIndex(t testing.TB, s *Store) {
	t.Helper()
	want := map[[2]int64]bool{}
	rows, err := s.r.Query(`SELECT rid, tags FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var rid int64
		var tagsJSON string
		if err := rows.Scan(&rid, &tagsJSON); err != nil {
			t.Fatal(err)
		}
		var tags nostr.Tags
		if err := json.Unmarshal([]byte(tagsJSON), &tags); err != nil {
			t.Fatal(err)
		}
		for _, tag := range tags {
			if len(tag) >= 2 && len(tag[0]) == 1 && strings.Contains(indexedTags, tag[0]) {
				want[[2]int64{tagHash(tag[0], tag[1]), rid}] = true
			}
		}
	}
	rows.Close()
	got := 0
	rows, err = s.r.Query(`SELECT hash, rid FROM event_tags`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key [2]int64
		if err := rows.Scan(&key[0], &key[1]); err != nil {
			t.Fatal(err)
		}
		if !want[key] {
			t.Errorf("tag index row %v belongs to no stored event's tags", key)
		}
		got++
	}
	if got != len(want) {
		t.Errorf("tag index has %d rows, stored events have %d indexed tags", got, len(want))
	}
}

func ids(evs []*nostr.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
}

// lowerFirst returns the two events ordered by id.
func lowerFirst(a, b *nostr.Event) (*nostr.Event, *nostr.Event) {
	if a.ID < b.ID {
		return a, b
	}
	return b, a
}

func sortedCopy(v []string) []string {
	c := slices.Clone(v)
	slices.Sort(c)
	return c
}

// The settings writes below run each in a transaction of its own, unchecked:
// the product changes settings only through settings.Modify (one
// transaction for a whole change, every value checked), so they live here.

func setSetting(s *Store, key, value string) error {
	return s.Configure(func(c ConfigTx) error { return c.SetSetting(key, value) })
}

func addRelay(s *Store, url string) error {
	return s.Configure(func(c ConfigTx) error { return c.AddRelay(url) })
}

func removeRelay(s *Store, url string) error {
	return s.Configure(func(c ConfigTx) error { return c.RemoveRelay(url) })
}

func addRoot(s *Store, hex string) error {
	return s.Configure(func(c ConfigTx) error { return c.AddRoot(hex) })
}

func removeRoot(s *Store, hex string) error {
	return s.Configure(func(c ConfigTx) error { return c.RemoveRoot(hex) })
}
