package validation

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// FuzzParseStatement feeds arbitrary tags (one per line, elements split by
// tabs) to the statement checklist. It must never panic, and whatever it
// accepts must be self-consistent: d recomputes, value is canonical.
func FuzzParseStatement(f *testing.F) {
	f.Add(true, "", "d\t"+userD[1]+"\ni\t"+userSubject+"\tuser:name:nasa\t"+npubA+"\ns\tx.com\nv\t1")
	f.Add(false, "note", "d\t"+StatementD('i', postSubject, []string{"x.com"}, "")+"\nk\tpost:id\ni\t"+postSubject+"\ns\tx.com\nscore\t50.5")
	f.Add(true, "<b>x</b>", "d\nk\np\t"+hexA+"\nc\ta::b\nx\t9\ny\t1\nl\n\ns\t")
	f.Fuzz(func(t *testing.T, trust bool, content, blob string) {
		kind := KindRating
		if trust {
			kind = KindTrust
		}
		ev := event(kind, content, tagsFromBlob(blob)...)
		st, err := ParseStatement(ev)
		_, _ = DefaultProfile().Check(ev)
		_ = Sanitize(content)
		if err != nil {
			if st != nil {
				t.Fatal("statement returned with an error")
			}
			if _, ok := err.(*Rejection); !ok {
				t.Fatalf("error %T is not a *Rejection", err)
			}
			return
		}
		if StatementD(st.SubjectTag, st.Subject, st.Scopes, st.Context) != st.D {
			t.Fatalf("accepted statement whose d does not recompute: %+v", *st)
		}
		if kind == KindRating && st.Value != "" {
			if !isCanonicalScore(st.Value) {
				t.Fatalf("accepted non-canonical score %q", st.Value)
			}
		}
	})
}

// FuzzParseClaims feeds arbitrary tags to the 10011 claims validator. It must
// never panic, refuse only with a *Rejection, and accept either no claim or
// exactly one well-formed handle and id.
func FuzzParseClaims(f *testing.F) {
	f.Add("i\ttwitter:NASA\t123\tpost:id:123\ni\ttwitter_id:11348282\t123")
	f.Add("i\ttwitter:a\ni\ttwitter_id:1\ni\tgithub:someone")
	f.Add("i\ttwitter:bad-handle\ni\ttwitter_id:x")
	f.Add("i\ttwitter:a\t\tpost:id:1\ni\ttwitter_id:1")
	f.Add("")
	f.Fuzz(func(t *testing.T, blob string) {
		c, err := ParseClaims(event(KindClaims, "", tagsFromBlob(blob)...))
		if err != nil {
			if _, ok := err.(*Rejection); !ok || c != nil {
				t.Fatalf("refusal %T %v with claims %v", err, err, c)
			}
			return
		}
		if len(c.Handles) != len(c.TwitterIDs) || len(c.Handles) > 1 {
			t.Fatalf("accepted claims %+v", *c)
		}
		for i, h := range c.Handles {
			if !isTwitterHandle(h) || h != strings.ToLower(h) || !isDigits(c.TwitterIDs[i]) {
				t.Fatalf("accepted malformed claim %q / %q", h, c.TwitterIDs[i])
			}
		}
	})
}

// tagsFromBlob reads tags one per line, elements split by tabs.
func tagsFromBlob(blob string) nostr.Tags {
	var tags nostr.Tags
	for _, line := range strings.Split(blob, "\n") {
		tags = append(tags, strings.Split(line, "\t"))
	}
	return tags
}
