package validation

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// trustAbout is a valid, unscoped 32009 about typed subject i, plus extra tags.
func trustAbout(i string, extra ...nostr.Tag) *nostr.Event {
	tags := append([]nostr.Tag{dTag('i', i, nil, ""), {"i", i}, {"v", "1"}}, extra...)
	return event(KindTrust, "", tags...)
}

// TestSubjectFormsAsTheExtension: the `i` forms the extension's
// validateIdentifierSubject accepts, and the ones it refuses (item 3).
func TestSubjectFormsAsTheExtension(t *testing.T) {
	for _, ok := range []string{
		"user:id:11348282", "post:id:0", "hash:" + hexA,
		"web:https://example.com/", "web:http://example.com:8080/a/b?q=1", "web:https://example.com/%C3%A9",
		"nostr:profile:" + hexA, "nostr:pubkey:" + hexA,
		"nostr:addr:30023:" + hexA + ":my-article", "nostr:addr:0:" + hexA + ":",
	} {
		if _, err := ParseStatement(trustAbout(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	const (
		ext   = "i subject uses a refused ext:twitter / ext:x form (use user:id:<digits>)"
		web   = "web subject is not a canonical http(s) URL (lowercase scheme and host, a path, no fragment, no default port)"
		addr  = "nostr:addr subject is not <kind>:<64 lowercase hex>:<identifier>"
		other = "i subject is not user:id, post:id, hash, web, nostr:profile, nostr:pubkey or nostr:addr"
	)
	for _, tt := range []struct{ subject, rule string }{
		{"ext:twitter_id:11348282", ext}, {"ext:twitter:nasa", ext}, {"ext:x:11348282", ext}, {"ext:x.com:nasa", ext},
		{"user:id:12a", "user:id / post:id value is not decimal digits"},
		{"hash:" + hexA[:63], "hash subject is not 64 lowercase hex characters"},
		{"hash:" + "7E7E9C42A91BFEF19FA929E5FDA1B72E0EBC1A4C1141673E2794234D86ADDF4E", "hash subject is not 64 lowercase hex characters"},
		{"web:HTTPS://example.com/", web}, {"web:https://Example.com/", web}, {"web:https://example.com", web},
		{"web:https://example.com/#top", web}, {"web:https://example.com:443/", web}, {"web:http://example.com:80/", web},
		{"web:ftp://example.com/", web}, {"web:example.com/", web},
		{"nostr:profile:" + hexA[:10], "nostr:profile / nostr:pubkey value is not 64 lowercase hex characters"},
		{"nostr:addr:01:" + hexA + ":a", addr}, {"nostr:addr:30023:" + hexA, addr}, {"nostr:addr:k:" + hexA + ":a", addr},
		{"user:name:nasa", other}, {"isbn:123:4", other},
	} {
		_, err := ParseStatement(trustAbout(tt.subject))
		wantRejection(t, err, "invalid", tt.rule)
	}
}

// TestWindowPresence: `["y","0"]` has expired, `["x","0"]` is active from 0,
// and neither equals an absent tag (item 5); times stay within JavaScript's
// safe integers (item 6).
func TestWindowPresence(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tags    []nostr.Tag
		from    int64
		until   int64
		expires bool
	}{
		{"no window", nil, 0, 0, false},
		{"y 0 has expired", []nostr.Tag{{"y", "0"}}, 0, 0, true},
		{"x 0 is active from 0", []nostr.Tag{{"x", "0"}}, 0, 0, false},
		{"largest safe y", []nostr.Tag{{"y", "9007199254740991"}}, 0, 9007199254740991, true},
	} {
		st, err := ParseStatement(trustAbout(userSubject, tt.tags...))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if st.ActiveFrom != tt.from || st.ActiveUntil != tt.until || st.Expires != tt.expires {
			t.Errorf("%s: from %d until %d expires %v", tt.name, st.ActiveFrom, st.ActiveUntil, st.Expires)
		}
	}
	_, err := ParseStatement(trustAbout(userSubject, nostr.Tag{"y", "9007199254740992"}))
	wantRejection(t, err, "invalid", "y is not a unix-seconds integer")
	_, err = ParseStatement(trustAbout(userSubject, nostr.Tag{"x", "9007199254740992"}))
	wantRejection(t, err, "invalid", "x is not a unix-seconds integer")
	for _, at := range []nostr.Timestamp{-1, 9007199254740992} {
		ev := trustAbout(userSubject)
		ev.CreatedAt = at
		_, err := ParseStatement(ev)
		wantRejection(t, err, "invalid", "created_at is not a non-negative safe integer")
	}
}

// TestScopeOrderIsUTF16: `d` material sorts scopes as JavaScript's default
// sort does (item 9): U+1F600 (a surrogate pair, 0xD83D…) sorts before
// U+FF61, although its UTF-8 bytes sort after.
func TestScopeOrderIsUTF16(t *testing.T) {
	for _, tt := range []struct {
		scopes []string
		want   string
	}{
		{[]string{"\uff61", "\U0001F600"}, "\U0001F600,\uff61"},
		{[]string{"x.com", "nostr", "x.com"}, "nostr,x.com"},
		{[]string{"\u00e9", "z"}, "z,\u00e9"},
		{[]string{"ab", "a"}, "a,ab"},
	} {
		if got := CanonicalScope(tt.scopes); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.scopes, got, tt.want)
		}
	}
	i := userSubject
	ev := event(KindTrust, "", nostr.Tag{"d", sha256Hex(i + ":\U0001F600,\uff61:")}, nostr.Tag{"i", i},
		nostr.Tag{"s", "\uff61"}, nostr.Tag{"s", "\U0001F600"}, nostr.Tag{"v", "1"})
	st, err := ParseStatement(ev)
	if err != nil {
		t.Fatal(err)
	}
	if st.Scopes[0] != "\U0001F600" {
		t.Fatalf("scopes %q", st.Scopes)
	}
}

// TestScoreMicros keeps a rating's decimals (item 1).
func TestScoreMicros(t *testing.T) {
	for _, tt := range []struct {
		score string
		want  int32
		ok    bool
	}{
		{"0", 0, true}, {"50.5", 50_500_000, true}, {"50.598334", 50_598_334, true}, {"100", 100_000_000, true},
		{"0.000001", 1, true}, {"50.50", 0, false}, {"", 0, false},
	} {
		if got, ok := ScoreMicros(tt.score); got != tt.want || ok != tt.ok {
			t.Errorf("%q: %d %v, want %d %v", tt.score, got, ok, tt.want, tt.ok)
		}
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
