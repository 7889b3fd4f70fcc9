package validation

import (
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// The arrival rules at their edges, on a fixed clock.
func TestArrivalRulesAtTheirEdges(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	a := Arrival{Now: func() time.Time { return now }, MaxTagBytes: 40}
	at := func(ahead int64, tags ...nostr.Tag) *nostr.Event {
		ev := event(KindTrust, "", tags...)
		ev.CreatedAt = nostr.Timestamp(now.Unix() + ahead)
		return ev
	}
	for _, tc := range []struct {
		name string
		ev   *nostr.Event
		want string // "" = kept
	}{
		{"15 min ahead", at(900), ""},
		{"15 min 1 s ahead", at(901), "invalid: created_at is more than 15 minutes in the future"},
		{"expires in 1 s", at(0, nostr.Tag{"expiration", "1800000001"}), ""},
		{"expires now", at(0, nostr.Tag{"expiration", "1800000000"}), "invalid: event has expired"},
		{"first expiration counts", at(0, nostr.Tag{"expiration", "1800000001"}, nostr.Tag{"expiration", "1"}), ""},
		{"expiration not a time", at(0, nostr.Tag{"expiration", "soon"}), "invalid: expiration tag is not a unix time in seconds"},
		{"expiration without value", at(0, nostr.Tag{"expiration"}), "invalid: expiration tag has no value"},
		{"tags at the cap", at(0, nostr.Tag{"t", strings.Repeat("x", 39)}), ""},
		{"tags past the cap", at(0, nostr.Tag{"t", strings.Repeat("x", 40)}), "invalid: tags of 41 bytes exceed the limit of 40 bytes"},
	} {
		got := ""
		if err := a.Check(tc.ev); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
