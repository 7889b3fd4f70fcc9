package validation

import (
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func TestParseClaimsAccepts(t *testing.T) {
	tests := []struct {
		name         string
		tags         []nostr.Tag
		handle, twid string
	}{
		{"two-element pair, handle lower-cased",
			[]nostr.Tag{{"i", "twitter:NASA_gov"}, {"i", "twitter_id:11348282"}}, "nasa_gov", "11348282"},
		{"legacy proof post id",
			[]nostr.Tag{{"i", "twitter:nasa", "2080659774136291424"}, {"i", "twitter_id:11348282", "2080659774136291424"}}, "nasa", "11348282"},
		{"proof with post:id hint, other providers kept aside",
			[]nostr.Tag{{"i", "github:someone", "gistid"}, {"i", "twitter:nasa", "208", "post:id:208"}, {"i", "twitter_id:11348282", "208", "post:id:208"}, {"p", hexA}},
			"nasa", "11348282"},
		{"15-character handle", []nostr.Tag{{"i", "twitter:abcdefghijklmn_"}, {"i", "twitter_id:1"}}, "abcdefghijklmn_", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := event(KindClaims, "", tt.tags...)
			ev.ID = hexA
			c, err := ParseClaims(ev)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Handles, []string{tt.handle}) || !slices.Equal(c.TwitterIDs, []string{tt.twid}) ||
				c.ID != hexA || c.Author != hexB || c.CreatedAt != 1672531300 {
				t.Fatalf("got %+v", *c)
			}
		})
	}
}

// A 10011 without twitter tags is valid and claims nothing: stored as the
// slot winner, it revokes the earlier claim.
func TestParseClaimsRevocation(t *testing.T) {
	for name, tags := range map[string][]nostr.Tag{
		"no tags":              nil,
		"other providers only": {{"i", "github:someone", "gistid"}, {"i", "mastodon:example.social/@a", "1"}},
	} {
		c, err := ParseClaims(event(KindClaims, "kept content", tags...))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.Handles) != 0 || len(c.TwitterIDs) != 0 || c.Author != hexB {
			t.Fatalf("%s: revocation must claim nothing, got %+v", name, *c)
		}
	}
}

// TestParseClaimsMalformed: a 10011 whose twitter tags break the extension's
// shapes is kept as its author's latest 10011 but claims nothing (issue 9
// items 7 and 8); Malformed names the rule. Only a wrong kind or created_at
// is refused.
func TestParseClaimsMalformed(t *testing.T) {
	h, id := nostr.Tag{"i", "twitter:nasa"}, nostr.Tag{"i", "twitter_id:11348282"}
	tests := []struct {
		name string
		ev   *nostr.Event
		rule string
	}{
		{"handle without id", event(KindClaims, "", h), "twitter claim needs exactly one twitter and one twitter_id i tag"},
		{"id without handle", event(KindClaims, "", id), "twitter claim needs exactly one twitter and one twitter_id i tag"},
		{"two handles", event(KindClaims, "", h, nostr.Tag{"i", "twitter:other"}, id), "twitter claim needs exactly one twitter and one twitter_id i tag"},
		{"two ids", event(KindClaims, "", h, id, nostr.Tag{"i", "twitter_id:2"}), "twitter claim needs exactly one twitter and one twitter_id i tag"},
		{"empty handle", event(KindClaims, "", nostr.Tag{"i", "twitter:"}, id), "twitter handle is not 1-15 of [A-Za-z0-9_]"},
		{"16-character handle", event(KindClaims, "", nostr.Tag{"i", "twitter:abcdefghijklmnop"}, id), "twitter handle is not 1-15 of [A-Za-z0-9_]"},
		{"handle with dash", event(KindClaims, "", nostr.Tag{"i", "twitter:na-sa"}, id), "twitter handle is not 1-15 of [A-Za-z0-9_]"},
		{"handle with @", event(KindClaims, "", nostr.Tag{"i", "twitter:@nasa"}, id), "twitter handle is not 1-15 of [A-Za-z0-9_]"},
		{"id not decimal", event(KindClaims, "", h, nostr.Tag{"i", "twitter_id:11a"}), "twitter_id is not decimal digits"},
		{"empty id", event(KindClaims, "", h, nostr.Tag{"i", "twitter_id:"}), "twitter_id is not decimal digits"},
		{"proof not decimal", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "abc"}, nostr.Tag{"i", "twitter_id:11348282", "abc"}), "twitter proof post id is not decimal digits on both tags"},
		{"proof on one tag only", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "208"}, id), "twitter proof post id is not decimal digits on both tags"},
		{"empty proofs with hints", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", ""}, nostr.Tag{"i", "twitter_id:11348282", ""}), "twitter tags without a proof have exactly two elements"},
		{"proof hint without proof", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "", "post:id:208"}, id), "twitter tags without a proof have exactly two elements"},
		{"proof ids differ", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "208"}, nostr.Tag{"i", "twitter_id:11348282", "209"}), "twitter and twitter_id proof post ids differ"},
		{"mixed arities", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "208", "post:id:208"}, nostr.Tag{"i", "twitter_id:11348282", "208"}), "twitter and twitter_id tags mix proof forms"},
		{"proof hint mismatch", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "208", "post:id:209"}, nostr.Tag{"i", "twitter_id:11348282", "208", "post:id:208"}), "twitter proof hint is not post:id:<proof post id>"},
		{"extra element", event(KindClaims, "", nostr.Tag{"i", "twitter:nasa", "208", "post:id:208", "x"}, nostr.Tag{"i", "twitter_id:11348282", "208", "post:id:208", "x"}), "twitter i tags have at most four elements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseClaims(tt.ev)
			if err != nil {
				t.Fatalf("a malformed 10011 is still kept: %v", err)
			}
			if c.Malformed != "invalid: "+tt.rule || len(c.TwitterIDs) != 0 || len(c.Handles) != 0 {
				t.Fatalf("got %+v, want no claim and %q", *c, tt.rule)
			}
		})
	}
	_, err := ParseClaims(event(KindTrust, "", h, id))
	wantRejection(t, err, "invalid", "kind 32009 is not 10011")
	bad := event(KindClaims, "", h, id)
	bad.CreatedAt = -1
	_, err = ParseClaims(bad)
	wantRejection(t, err, "invalid", "created_at is not a non-negative safe integer")
}
