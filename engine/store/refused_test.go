package store

import (
	"maps"
	"testing"
)

// Refused ids are remembered with why, survive a reopen, and are forgotten
// after RefusedKeep.
func TestRefusedIDsAreRemembered(t *testing.T) {
	s, path := openTemp(t)
	const now = 1_790_000_000
	if err := s.NoteRefused(map[string]string{"aa": "invalid: bad signature", "bb": "invalid: bad signature"}, now-RefusedKeep); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteRefused(map[string]string{"cc": "blocked: kind 1 is not kept by this server"}, now); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.RefusedAmong([]string{"aa", "bb", "cc", "dd"})
	if want := map[string]string{"aa": "invalid: bad signature", "bb": "invalid: bad signature",
		"cc": "blocked: kind 1 is not kept by this server"}; err != nil || !maps.Equal(got, want) {
		t.Fatalf("refused among: %v (%v), want %v", got, err, want)
	}
	if err := s.NoteRefused(map[string]string{"dd": "invalid: bad signature"}, now+1); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.RefusedAmong([]string{"aa", "bb", "cc", "dd"}); len(got) != 2 || got["aa"] != "" {
		t.Fatalf("after %d s: %v, want the older two forgotten", RefusedKeep+1, got)
	}
}
