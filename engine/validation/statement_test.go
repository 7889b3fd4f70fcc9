package validation

import (
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

func TestParseStatementAcceptsFullTrustStatement(t *testing.T) {
	ev := event(KindTrust, "Watching this account.",
		userD,
		nostr.Tag{"k", "user:id"},
		nostr.Tag{"i", userSubject, "user:name:nasa", npubA},
		nostr.Tag{"s", "x.com"},
		nostr.Tag{"v", "0"},
		nostr.Tag{"l", "reviewer"},
		nostr.Tag{"l", "reviewer", "Trusted reviewer"},
		nostr.Tag{"l", "space", "Space <b>agency</b>"},
		nostr.Tag{"x", "1672531600"},
		nostr.Tag{"y", "1672618000"},
		nostr.Tag{"unknown", "kept and ignored"},
	)
	ev.ID = strings.Repeat("f", 64)
	st, err := ParseStatement(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := Statement{
		Kind: KindTrust, ID: ev.ID, Author: hexB, CreatedAt: 1672531300, D: userD[1],
		SubjectTag: 'i', Subject: userSubject, BoundHints: []string{hexA},
		Value: "0", Scopes: []string{"x.com"},
		Labels:     []Label{{"reviewer", "Trusted reviewer"}, {"space", "Space <b>agency</b>"}},
		ActiveFrom: 1672531600, ActiveUntil: 1672618000, Content: "Watching this account.",
	}
	if st.Kind != want.Kind || st.ID != want.ID || st.Author != want.Author || st.CreatedAt != want.CreatedAt ||
		st.D != want.D || st.SubjectTag != want.SubjectTag || st.Subject != want.Subject ||
		!slices.Equal(st.BoundHints, want.BoundHints) || st.Value != want.Value || st.Context != want.Context ||
		!slices.Equal(st.Scopes, want.Scopes) || !slices.Equal(st.Labels, want.Labels) ||
		st.ActiveFrom != want.ActiveFrom || st.ActiveUntil != want.ActiveUntil || st.Content != want.Content {
		t.Fatalf("got  %+v\nwant %+v", *st, want)
	}
	if st.Deleted() {
		t.Fatal("a neutral statement is not a delete")
	}
}

func TestParseStatementAcceptsEverySubjectForm(t *testing.T) {
	tests := []struct {
		name string
		ev   *nostr.Event
		want Statement
	}{
		{"p subject, scope and context, hinted",
			event(KindTrust, "", dTag('p', hexA, []string{"nostr"}, "development"),
				nostr.Tag{"p", hexA, "user:name:John Doe"}, nostr.Tag{"s", "nostr"}, nostr.Tag{"c", "development"}, nostr.Tag{"v", "1"}),
			Statement{SubjectTag: 'p', Subject: hexA, Value: "1", Scopes: []string{"nostr"}, Context: "development"}},
		{"e subject, empty scope, hierarchical context",
			event(KindTrust, "", dTag('e', hexA, nil, "news:accuracy"),
				nostr.Tag{"e", hexA, "post:title:Example: a title"}, nostr.Tag{"c", "news:accuracy"}, nostr.Tag{"v", "-1"}),
			Statement{SubjectTag: 'e', Subject: hexA, Value: "-1", Context: "news:accuracy"}},
		{"delete with duplicate, unordered scopes",
			event(KindTrust, "", dTag('i', userSubject, []string{"twitter.com", "x.com"}, ""),
				nostr.Tag{"i", userSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"s", "twitter.com"}, nostr.Tag{"s", "x.com"}, nostr.Tag{"v", ""}),
			Statement{SubjectTag: 'i', Subject: userSubject, Value: "", Scopes: []string{"twitter.com", "x.com"}}},
		{"empty c tag is global",
			event(KindTrust, "", userD, nostr.Tag{"i", userSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"c", ""}, nostr.Tag{"v", "1"}),
			Statement{SubjectTag: 'i', Subject: userSubject, Value: "1", Scopes: []string{"x.com"}}},
		{"hash subject with single-segment k",
			event(KindTrust, "", dTag('i', "hash:"+hexA, nil, ""), nostr.Tag{"k", "hash"}, nostr.Tag{"i", "hash:" + hexA}, nostr.Tag{"v", "1"}),
			Statement{SubjectTag: 'i', Subject: "hash:" + hexA, Value: "1"}},
		{"1024-character content",
			event(KindTrust, strings.Repeat("é", 1024), userD, nostr.Tag{"i", userSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"v", "1"}),
			Statement{SubjectTag: 'i', Subject: userSubject, Value: "1", Scopes: []string{"x.com"}}},
		{"rating: stray v tag is ignored",
			event(KindRating, "", dTag('i', postSubject, []string{"x.com"}, ""), nostr.Tag{"k", "post:id"},
				nostr.Tag{"i", postSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"score", "80"}, nostr.Tag{"v", "bogus"}),
			Statement{SubjectTag: 'i', Subject: postSubject, Value: "80", Scopes: []string{"x.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseStatement(tt.ev)
			if err != nil {
				t.Fatal(err)
			}
			if st.SubjectTag != tt.want.SubjectTag || st.Subject != tt.want.Subject || st.Value != tt.want.Value ||
				st.Context != tt.want.Context || !slices.Equal(st.Scopes, tt.want.Scopes) || st.Content != tt.ev.Content {
				t.Fatalf("got %+v, want %+v", *st, tt.want)
			}
		})
	}
}

func TestParseStatementCanonicalScore(t *testing.T) {
	// Only scores already canonical are valid (issue 9 item 2); those the
	// extension would rewrite ("50.0", "7.10") are refused below.
	tests := []struct{ wire, want string }{
		{"", ""}, {"0", "0"}, {"20", "20"}, {"50.5", "50.5"}, {"50.598334", "50.598334"},
		{"0.5", "0.5"}, {"99.999999", "99.999999"}, {"100", "100"}, {"7.1", "7.1"},
	}
	for _, tt := range tests {
		ev := event(KindRating, "", dTag('i', postSubject, []string{"x.com"}, ""),
			nostr.Tag{"i", postSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"score", tt.wire})
		st, err := ParseStatement(ev)
		if err != nil {
			t.Fatalf("score %q: %v", tt.wire, err)
		}
		if st.Value != tt.want || st.Deleted() != (tt.want == "") {
			t.Fatalf("score %q: got %q deleted=%v, want %q", tt.wire, st.Value, st.Deleted(), tt.want)
		}
	}
}

// One row per checklist rule of NIP-32009 and NIP-32014 (signature is
// VerifyEvent's; see verify_test.go). Each event breaks exactly one rule.
func TestParseStatementRejections(t *testing.T) {
	i, s, v := nostr.Tag{"i", userSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"v", "1"}
	pD := dTag('p', hexA, nil, "")
	postD := dTag('i', postSubject, []string{"x.com"}, "")
	post, score := nostr.Tag{"i", postSubject}, nostr.Tag{"score", "80"}
	badChecksum := npubA[:len(npubA)-1] + "q"
	tests := []struct {
		name string
		ev   *nostr.Event
		rule string
	}{
		{"kind not a statement", event(1, "", userD, i, s, v), "kind 1 is not a statement kind (32009 or 32014)"},
		// 2. exactly one d, subject, v / score.
		{"no d", event(KindTrust, "", i, s, v), "exactly one d tag required"},
		{"two d", event(KindTrust, "", userD, userD, i, s, v), "exactly one d tag required"},
		{"d without value", event(KindTrust, "", nostr.Tag{"d"}, i, s, v), "d tag must have exactly two elements"},
		{"d with a third element", event(KindTrust, "", append(slices.Clone(userD), "x"), i, s, v), "d tag must have exactly two elements"},
		{"d not lowercase hex", event(KindTrust, "", nostr.Tag{"d", strings.ToUpper(userD[1])}, i, s, v), "d tag is not 64 lowercase hex characters"},
		{"d raw subject", event(KindTrust, "", nostr.Tag{"d", userSubject}, i, s, v), "d tag is not 64 lowercase hex characters"},
		{"no subject", event(KindTrust, "", userD, s, v), "exactly one subject (p, e or i) tag required"},
		{"two subjects", event(KindTrust, "", userD, i, nostr.Tag{"p", hexA}, s, v), "exactly one subject (p, e or i) tag required"},
		{"subject without value", event(KindTrust, "", userD, nostr.Tag{"i"}, s, v), "subject (p, e or i) tag has no value"},
		{"no v", event(KindTrust, "", userD, i, s), "exactly one v tag required"},
		{"two v", event(KindTrust, "", userD, i, s, v, nostr.Tag{"v", "-1"}), "exactly one v tag required"},
		{"v without value", event(KindTrust, "", userD, i, s, nostr.Tag{"v"}), "v tag must have exactly two elements"},
		{"v with a third element", event(KindTrust, "", userD, i, s, nostr.Tag{"v", "1", ""}), "v tag must have exactly two elements"},
		{"rating without score", event(KindRating, "", postD, post, s, nostr.Tag{"v", "1"}), "exactly one score tag required"},
		{"two scores", event(KindRating, "", postD, post, s, score, score), "exactly one score tag required"},
		{"score without value", event(KindRating, "", postD, post, s, nostr.Tag{"score"}), "score tag must have exactly two elements"},
		{"score with a third element", event(KindRating, "", postD, post, s, nostr.Tag{"score", "80", "100"}), "score tag must have exactly two elements"},
		// 3. at most one k, c, x, y.
		{"two k", event(KindTrust, "", userD, nostr.Tag{"k", "user:id"}, nostr.Tag{"k", "user:id"}, i, s, v), "at most one k tag allowed"},
		{"two c", event(KindTrust, "", userD, i, s, v, nostr.Tag{"c", "identity"}, nostr.Tag{"c", "identity"}), "at most one c tag allowed"},
		{"two x", event(KindTrust, "", userD, i, s, v, nostr.Tag{"x", "1"}, nostr.Tag{"x", "2"}), "at most one x tag allowed"},
		{"two y", event(KindTrust, "", userD, i, s, v, nostr.Tag{"y", "1"}, nostr.Tag{"y", "2"}), "at most one y tag allowed"},
		{"c without value", event(KindTrust, "", userD, i, s, v, nostr.Tag{"c"}), "c tag must have exactly two elements"},
		{"k with a third element", event(KindTrust, "", userD, nostr.Tag{"k", "user:id", "x"}, i, s, v), "k tag must have exactly two elements"},
		{"x with a third element", event(KindTrust, "", userD, i, s, v, nostr.Tag{"x", "1", "2"}), "x tag must have exactly two elements"},
		{"y with a third element", event(KindTrust, "", userD, i, s, v, nostr.Tag{"y", "1", ""}), "y tag must have exactly two elements"},
		// 4. k without i.
		{"k with p subject", event(KindTrust, "", pD, nostr.Tag{"k", "user:id"}, nostr.Tag{"p", hexA}, v), "k tag requires an i subject"},
		{"rating: k with p subject", event(KindRating, "", pD, nostr.Tag{"k", "user:id"}, nostr.Tag{"p", hexA}, score), "k tag requires an i subject"},
		// 5. k equals the class:property prefix of i, with a non-empty value.
		{"k not canonical", event(KindTrust, "", userD, nostr.Tag{"k", "User:id"}, i, s, v), "k tag is not canonical (lowercase [a-z0-9._-] segments joined by ':')"},
		{"k other prefix", event(KindTrust, "", userD, nostr.Tag{"k", "post:id"}, i, s, v), "k tag does not equal the class:property prefix of i"},
		{"k partial prefix", event(KindTrust, "", userD, nostr.Tag{"k", "user:i"}, i, s, v), "k tag does not equal the class:property prefix of i"},
		{"k equals i, empty value", event(KindTrust, "", dTag('i', "user:id", nil, ""), nostr.Tag{"k", "user:id"}, nostr.Tag{"i", "user:id"}, v), "k tag does not equal the class:property prefix of i"},
		// Subject shapes (p / e hex; i typed).
		{"p not lowercase hex", event(KindTrust, "", pD, nostr.Tag{"p", strings.ToUpper(hexA)}, v), "p subject is not 64 lowercase hex characters"},
		{"e too short", event(KindTrust, "", pD, nostr.Tag{"e", hexA[:63]}, v), "e subject is not 64 lowercase hex characters"},
		{"p as npub", event(KindTrust, "", pD, nostr.Tag{"p", npubA}, v), "p subject is not 64 lowercase hex characters"},
		{"i untyped", event(KindTrust, "", dTag('i', "nasa", nil, ""), nostr.Tag{"i", "nasa"}, v), "i subject is not user:id, post:id, hash, web, nostr:profile, nostr:pubkey or nostr:addr"},
		{"i uppercase class", event(KindTrust, "", dTag('i', "User:id:1", nil, ""), nostr.Tag{"i", "User:id:1"}, v), "i subject is not user:id, post:id, hash, web, nostr:profile, nostr:pubkey or nostr:addr"},
		// 6. user:id / post:id decimal.
		{"user:id not decimal", event(KindTrust, "", dTag('i', "user:id:nasa", nil, ""), nostr.Tag{"i", "user:id:nasa"}, v), "user:id / post:id value is not decimal digits"},
		{"post:id empty value", event(KindTrust, "", dTag('i', "post:id:", nil, ""), nostr.Tag{"i", "post:id:"}, v), "user:id / post:id value is not decimal digits"},
		{"rating: post:id not decimal", event(KindRating, "", dTag('i', "post:id:12a", nil, ""), nostr.Tag{"i", "post:id:12a"}, score), "user:id / post:id value is not decimal digits"},
		// 7. hints are class:property:value or a canonical npub.
		{"hint free text", event(KindTrust, "", userD, nostr.Tag{"i", userSubject, "nasa"}, s, v), "subject hint is neither class:property:value nor a canonical npub"},
		{"hint empty value", event(KindTrust, "", userD, nostr.Tag{"i", userSubject, "user:name:"}, s, v), "subject hint is neither class:property:value nor a canonical npub"},
		{"hint uppercase npub", event(KindTrust, "", userD, nostr.Tag{"i", userSubject, strings.ToUpper(npubA)}, s, v), "subject hint is neither class:property:value nor a canonical npub"},
		{"hint npub bad checksum", event(KindTrust, "", userD, nostr.Tag{"i", userSubject, badChecksum}, s, v), "subject hint is neither class:property:value nor a canonical npub"},
		{"hint on p subject", event(KindTrust, "", pD, nostr.Tag{"p", hexA, "hex " + hexA}, v), "subject hint is neither class:property:value nor a canonical npub"},
		// 8. s non-empty, within limits, lowercase.
		{"s empty", event(KindTrust, "", userD, i, nostr.Tag{"s", ""}, v), "s value is empty"},
		{"s without value", event(KindTrust, "", userD, i, nostr.Tag{"s"}, v), "s tag must have exactly two elements"},
		{"s with a third element", event(KindTrust, "", userD, i, nostr.Tag{"s", "x.com", "y"}, v), "s tag must have exactly two elements"},
		{"s too long", event(KindTrust, "", userD, i, nostr.Tag{"s", long(129)}, v), "s value exceeds 128 bytes"},
		{"s uppercase", event(KindTrust, "", userD, i, nostr.Tag{"s", "X.com"}, v), "s value is not lowercase"},
		// 9. v value, time tags integer, x <= y.
		{"v out of set", event(KindTrust, "", userD, i, s, nostr.Tag{"v", "2"}), `v is not one of "1", "0", "-1" or "" (delete)`},
		{"v whitespace", event(KindTrust, "", userD, i, s, nostr.Tag{"v", " "}), `v is not one of "1", "0", "-1" or "" (delete)`},
		{"v plus sign", event(KindTrust, "", userD, i, s, nostr.Tag{"v", "+1"}), `v is not one of "1", "0", "-1" or "" (delete)`},
		{"x not integer", event(KindTrust, "", userD, i, s, v, nostr.Tag{"x", "soon"}), "x is not a unix-seconds integer"},
		{"x fractional", event(KindTrust, "", userD, i, s, v, nostr.Tag{"x", "1.5"}), "x is not a unix-seconds integer"},
		{"y negative", event(KindTrust, "", userD, i, s, v, nostr.Tag{"y", "-5"}), "y is not a unix-seconds integer"},
		{"x after y", event(KindTrust, "", userD, i, s, v, nostr.Tag{"x", "20"}, nostr.Tag{"y", "10"}), "x is later than y"},
		{"rating: x after y", event(KindRating, "", postD, post, s, score, nostr.Tag{"x", "20"}, nostr.Tag{"y", "10"}), "x is later than y"},
		// 10. c and l canonical, at most 128 bytes.
		{"c uppercase", event(KindTrust, "", dTag('i', userSubject, []string{"x.com"}, "Identity"), i, s, v, nostr.Tag{"c", "Identity"}), "c is not canonical (lowercase [a-z0-9._-] segments joined by ':')"},
		{"c empty segment", event(KindTrust, "", dTag('i', userSubject, []string{"x.com"}, "a::b"), i, s, v, nostr.Tag{"c", "a::b"}), "c is not canonical (lowercase [a-z0-9._-] segments joined by ':')"},
		{"c with space", event(KindTrust, "", dTag('i', userSubject, []string{"x.com"}, "a b"), i, s, v, nostr.Tag{"c", "a b"}), "c is not canonical (lowercase [a-z0-9._-] segments joined by ':')"},
		{"c too long", event(KindTrust, "", dTag('i', userSubject, []string{"x.com"}, long(129)), i, s, v, nostr.Tag{"c", long(129)}), "c exceeds 128 bytes"},
		{"l without label", event(KindTrust, "", userD, i, s, v, nostr.Tag{"l"}), "l tag has no label"},
		{"l display name", event(KindTrust, "", userD, i, s, v, nostr.Tag{"l", "AI slop"}), "l label is not canonical (lowercase [a-z0-9._-] segments joined by ':')"},
		{"l too long", event(KindTrust, "", userD, i, s, v, nostr.Tag{"l", long(129)}), "l label exceeds 128 bytes"},
		{"rating: l display name", event(KindRating, "", postD, post, s, score, nostr.Tag{"l", "Spam"}), "l label is not canonical (lowercase [a-z0-9._-] segments joined by ':')"},
		// 11. d recomputed from subject, scope and context.
		{"d of another context", event(KindTrust, "", userD, i, s, v, nostr.Tag{"c", "identity"}), "d tag does not match material"},
		{"d of another scope", event(KindTrust, "", userD, i, v), "d tag does not match material"},
		{"d of another subject kind", event(KindTrust, "", dTag('e', hexA, nil, ""), nostr.Tag{"p", hexA}, v), "d tag does not match material"},
		{"d over a hint", event(KindTrust, "", dTag('i', "user:name:nasa", []string{"x.com"}, ""), nostr.Tag{"i", userSubject, "user:name:nasa"}, s, v), "d tag does not match material"},
		{"rating: d mismatch", event(KindRating, "", userD, post, s, score), "d tag does not match material"},
		// 12. content limit, in characters.
		{"content 1025 characters", event(KindTrust, strings.Repeat("é", 1025), userD, i, s, v), "content exceeds 1024 characters"},
		{"rating: content 1025 characters", event(KindRating, long(1025), postD, post, s, score), "content exceeds 1024 characters"},
	}
	for _, wire := range []string{" ", "050", "050.0", "1e2", "100.5", "100.0000001", "101", "-1", "+5", ".5", "5.", "50.1234567", "0x10", "1,5", "٥", "50.0", "100.000", "50.50", "007", "-0", "0.0", "7.10"} {
		tests = append(tests, struct {
			name string
			ev   *nostr.Event
			rule string
		}{"score " + wire, event(KindRating, "", postD, post, s, nostr.Tag{"score", wire}), "score is not a canonical decimal in [0, 100] (at most 6 fraction digits)"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseStatement(tt.ev)
			if st != nil {
				t.Fatalf("rejected event returned a statement: %+v", *st)
			}
			wantRejection(t, err, "invalid", tt.rule)
		})
	}
}

func TestHintsAndLabelsDoNotChangeD(t *testing.T) {
	bare := event(KindTrust, "", userD, nostr.Tag{"i", userSubject}, nostr.Tag{"s", "x.com"}, nostr.Tag{"v", "1"})
	decorated := event(KindTrust, "reason", userD, nostr.Tag{"i", userSubject, "user:name:nasa", npubA},
		nostr.Tag{"s", "x.com"}, nostr.Tag{"v", ""}, nostr.Tag{"l", "reviewer", "desc"}, nostr.Tag{"x", "1"}, nostr.Tag{"y", "2"})
	for _, ev := range []*nostr.Event{bare, decorated} {
		if _, err := ParseStatement(ev); err != nil {
			t.Fatalf("same d must stay valid whatever the hints, labels, value and window: %v", err)
		}
	}
}
