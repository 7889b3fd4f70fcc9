package validation

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func TestVerifyEvent(t *testing.T) {
	fresh := func() *nostr.Event {
		return signed(t, KindTrust, "reason", userD, nostr.Tag{"i", userSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"v", "1"})
	}
	flip := func(s string, at int) string {
		c := byte('0')
		if s[at] == '0' {
			c = '1'
		}
		return s[:at] + string(c) + s[at+1:]
	}
	tests := []struct {
		name   string
		tamper func(ev *nostr.Event)
		rule   string // empty: valid
	}{
		{"untouched", func(*nostr.Event) {}, ""},
		{"tampered id", func(ev *nostr.Event) { ev.ID = flip(ev.ID, 10) }, "event id does not match its content"},
		{"tampered content", func(ev *nostr.Event) { ev.Content = "other reason" }, "event id does not match its content"},
		{"tampered tag", func(ev *nostr.Event) { ev.Tags[3][1] = "-1" }, "event id does not match its content"},
		{"tampered signature", func(ev *nostr.Event) { ev.Sig = flip(ev.Sig, 70) }, "bad signature"},
		{"tampered signature r", func(ev *nostr.Event) { ev.Sig = flip(ev.Sig, 5) }, "bad signature"},
		// A forger who recomputes the id over a swapped author still lacks the key.
		{"other author, id recomputed", func(ev *nostr.Event) { ev.PubKey = hexA; ev.ID = ev.GetID() }, "bad signature"},
		{"id uppercase", func(ev *nostr.Event) { ev.ID = strings.ToUpper(ev.ID) }, "event id is not 64 lowercase hex characters"},
		{"id short", func(ev *nostr.Event) { ev.ID = ev.ID[:62] }, "event id is not 64 lowercase hex characters"},
		{"pubkey uppercase", func(ev *nostr.Event) { ev.PubKey = strings.ToUpper(ev.PubKey) }, "pubkey is not 64 lowercase hex characters"},
		{"pubkey not hex", func(ev *nostr.Event) { ev.PubKey = "z" + ev.PubKey[1:] }, "pubkey is not 64 lowercase hex characters"},
		{"sig short", func(ev *nostr.Event) { ev.Sig = ev.Sig[:126] }, "signature is not 128 lowercase hex characters"},
		{"sig uppercase", func(ev *nostr.Event) { ev.Sig = strings.ToUpper(ev.Sig) }, "signature is not 128 lowercase hex characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := fresh()
			tt.tamper(ev)
			err := VerifyEvent(ev)
			if tt.rule == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRejection(t, err, "invalid", tt.rule)
		})
	}
}
