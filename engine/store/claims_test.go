package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// claimsEvent is a valid 10011 claiming X account id, or nothing when id is "".
func claimsEvent(pubkey string, createdAt int64, id string) *nostr.Event {
	if id == "" {
		return mkEvent(10011, pubkey, createdAt)
	}
	return mkEvent(10011, pubkey, createdAt, nostr.Tag{"i", "twitter:user" + id}, nostr.Tag{"i", "twitter_id:" + id}) // proofless: two elements (issue 9 item 7)
}

// claimHistory renders the claim history as "pubkey-tail/id claimed..revoked" rows.
func claimHistory(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.Query(`SELECT pubkey, twitter_id, claimed_at, revoked_at FROM claim_history ORDER BY pubkey, twitter_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pubkey, id string
		var claimed, revoked int64
		if err := rows.Scan(&pubkey, &id, &claimed, &revoked); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s/%s %d..%d", pubkey[:4], id, claimed, revoked))
	}
	return out
}

func TestClaimHistoryFollowsTheSlotWinner(t *testing.T) {
	s, _ := openTemp(t)
	p := hex64("p")
	steps := []struct {
		ev   *nostr.Event
		want []string
	}{
		{claimsEvent(p, 10, "555"), []string{p[:4] + "/555 10..0"}},
		{claimsEvent(p, 20, ""), []string{p[:4] + "/555 10..20"}},    // dropped: revoked
		{claimsEvent(p, 15, "777"), []string{p[:4] + "/555 10..20"}}, // superseded: no trace
		{claimsEvent(p, 30, "777"), []string{p[:4] + "/555 10..20", p[:4] + "/777 30..0"}},
		{claimsEvent(p, 40, "555"), []string{p[:4] + "/555 40..0", p[:4] + "/777 30..40"}}, // claimed again
	}
	for i, st := range steps {
		save(t, s, st.ev)
		if got := claimHistory(t, s); !slices.Equal(got, st.want) {
			t.Fatalf("step %d: history %v, want %v", i, got, st.want)
		}
	}
	var pairs []string
	if err := s.EachClaimedPair(context.Background(), func(pubkey, id string) { pairs = append(pairs, id) }); err != nil {
		t.Fatal(err)
	}
	if slices.Sort(pairs); !slices.Equal(pairs, []string{"555", "777"}) {
		t.Fatalf("claimed pairs %v", pairs)
	}
}

// The migration seeds the history from the 10011s a database already holds.
func TestClaimHistoryMigrationSeedsHeldClaims(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dtp.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ev := claimsEvent(hex64("p"), 10, "555")
	tags := `[["i","twitter:user555",""],["i","twitter_id:555",""]]`
	for _, q := range []string{migrations[0], "PRAGMA user_version = 1"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO events (id, pubkey, created_at, kind, tags, content, sig) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, tags, ev.Content, ev.Sig); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, want := claimHistory(t, s), []string{ev.PubKey[:4] + "/555 10..0"}; !slices.Equal(got, want) {
		t.Fatalf("seeded history %v, want %v", got, want)
	}
}

func TestClaimsFetched(t *testing.T) {
	s, _ := openTemp(t)
	a, b := hex64("a"), hex64("b")
	for _, batch := range [][]string{{b}, {a, b}, nil} {
		if err := s.RecordClaimsFetched(batch, 100); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ClaimsFetched()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{a, b}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
}

func TestClaimsFetchedOnAFullDiskMarksTheStoreFull(t *testing.T) {
	s, _ := openTemp(t)
	uncapped, err := s.CapPages(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CapPages(1); err != nil {
		t.Fatal(err)
	}
	many := make([]string, 5000)
	for i := range many {
		many[i] = fmt.Sprintf("%064x", i)
	}
	if err := s.RecordClaimsFetched(many, 1); err == nil || !IsFull(err) {
		t.Fatalf("recording on a full disk: %v, want a storage-full error", err)
	}
	if !s.Full() {
		t.Fatal("a full disk met while recording fetched claims left the store not full")
	}
	if _, err := s.CapPages(uncapped); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordClaimsFetched(many, 1); err != nil || s.Full() {
		t.Fatalf("after space returned: %v, full %v", err, s.Full())
	}
}
