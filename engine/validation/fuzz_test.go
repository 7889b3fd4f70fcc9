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
		var tags nostr.Tags
		for _, line := range strings.Split(blob, "\n") {
			tags = append(tags, strings.Split(line, "\t"))
		}
		ev := event(kind, content, tags...)
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
