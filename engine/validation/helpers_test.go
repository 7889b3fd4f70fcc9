package validation

import (
	"errors"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// Fixed subjects used across the tests.
const (
	userSubject = "user:id:11348282"
	postSubject = "post:id:2080659774136291424"
	hexA        = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"
	npubA       = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg" // NIP-19's example of hexA
	hexB        = "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"
)

// event builds an unsigned event; ParseStatement / ParseClaims never look
// at the signature.
func event(kind int, content string, tags ...nostr.Tag) *nostr.Event {
	return &nostr.Event{Kind: kind, PubKey: hexB, CreatedAt: 1672531300, Tags: tags, Content: content}
}

// signed builds and signs an event with a fresh key.
func signed(t testing.TB, kind int, content string, tags ...nostr.Tag) *nostr.Event {
	t.Helper()
	ev := event(kind, content, tags...)
	if err := ev.Sign(nostr.GeneratePrivateKey()); err != nil {
		t.Fatalf("sign: %v", err)
	}
	return ev
}

// dTag is the correct d tag for the given slot.
func dTag(subjectTag byte, subject string, scopes []string, context string) nostr.Tag {
	return nostr.Tag{"d", StatementD(subjectTag, subject, scopes, context)}
}

// userD is the d tag of the global x.com slot about userSubject.
var userD = dTag('i', userSubject, []string{"x.com"}, "")

// wantRejection fails unless err is a *Rejection with exactly prefix: rule.
func wantRejection(t *testing.T, err error, prefix, rule string) {
	t.Helper()
	var r *Rejection
	if !errors.As(err, &r) {
		t.Fatalf("got %v, want rejection %q", err, prefix+": "+rule)
	}
	if r.Prefix != prefix || r.Rule != rule {
		t.Fatalf("got %q, want %q", r.Error(), prefix+": "+rule)
	}
}

func long(n int) string { return strings.Repeat("a", n) }
