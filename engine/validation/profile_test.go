package validation

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// Real signed events through the whole admission path: VerifyEvent, then
// the kind gate, the kind's checklist and scope eligibility.
func TestProfileCheck(t *testing.T) {
	post := nostr.Tag{"i", postSubject}
	scoped := func(kind int, value nostr.Tag, scopes ...string) *nostr.Event {
		tags := []nostr.Tag{dTag('i', postSubject, scopes, ""), post, value}
		for _, s := range scopes {
			tags = append(tags, nostr.Tag{"s", s})
		}
		return signed(t, kind, "", tags...)
	}
	v, score := nostr.Tag{"v", "1"}, nostr.Tag{"score", "60"}
	tests := []struct {
		name         string
		profile      Profile
		ev           *nostr.Event
		prefix, rule string // empty: kept
	}{
		{"32009 without s", DefaultProfile(), scoped(KindTrust, v), "", ""},
		{"32009 s=x.com", DefaultProfile(), scoped(KindTrust, v, "x.com"), "", ""},
		{"32009 s=x.com among others", DefaultProfile(), scoped(KindTrust, v, "twitter.com", "x.com"), "", ""},
		{"32009 delete s=x.com", DefaultProfile(), scoped(KindTrust, nostr.Tag{"v", ""}, "x.com"), "", ""},
		{"32009 other scope", DefaultProfile(), scoped(KindTrust, v, "github.com"), "blocked", "kind 32009 scope is neither empty nor x.com"},
		{"32014 s=x.com", DefaultProfile(), scoped(KindRating, score, "x.com"), "", ""},
		{"32014 cancel s=x.com", DefaultProfile(), scoped(KindRating, nostr.Tag{"score", ""}, "x.com"), "", ""},
		{"32014 without s", DefaultProfile(), scoped(KindRating, score), "blocked", "kind 32014 needs s=x.com"},
		{"32014 other scope", DefaultProfile(), scoped(KindRating, score, "github.com"), "blocked", "kind 32014 needs s=x.com"},
		{"custom profile scope", Profile{Scope: "github.com"}, scoped(KindRating, score, "github.com"), "", ""},
		{"custom profile, x.com 32009", Profile{Scope: "github.com"}, scoped(KindTrust, v, "x.com"), "blocked", "kind 32009 scope is neither empty nor github.com"},
		{"10011 claim", DefaultProfile(), signed(t, KindClaims, "", nostr.Tag{"i", "twitter:nasa"}, nostr.Tag{"i", "twitter_id:11348282"}), "", ""},
		{"10011 revocation", DefaultProfile(), signed(t, KindClaims, ""), "", ""},
		{"10011 malformed is kept: it claims nothing", DefaultProfile(), signed(t, KindClaims, "", nostr.Tag{"i", "twitter:nasa"}), "", ""},
		{"kind 1", DefaultProfile(), signed(t, 1, "hello"), "blocked", "kind 1 is not kept by this server"},
		{"kind 0", DefaultProfile(), signed(t, 0, "{}"), "blocked", "kind 0 is not kept by this server"},
		{"kind rule before scope", DefaultProfile(), signed(t, KindRating, "", nostr.Tag{"i", postSubject}, nostr.Tag{"s", "github.com"}, score), "invalid", "exactly one d tag required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := VerifyEvent(tt.ev); err != nil {
				t.Fatalf("signed test event failed verification: %v", err)
			}
			_, err := tt.profile.Check(tt.ev)
			if tt.prefix == "" {
				if err != nil {
					t.Fatalf("want kept, got %v", err)
				}
				return
			}
			wantRejection(t, err, tt.prefix, tt.rule)
		})
	}
}
