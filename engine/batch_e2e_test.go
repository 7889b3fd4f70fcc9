package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// batchWeb runs an engine holding a root trusting six authors who trust,
// distrust or are neutral about 40 people in varied mixes (every verdict
// occurs), plus statements about X accounts, pushed over a real socket; it
// returns the engine, its HTTP base, the connection, the six and the 40.
func batchWeb(t *testing.T) (eng *Engine, base string, c *rawClient, authors, people []fixture.Author) {
	t.Helper()
	t.Parallel()
	eng, wsURL := startEngine(t, Options{})
	base = "http" + strings.TrimPrefix(wsURL, "ws")
	c = dialRaw(t, wsURL)
	root := fixture.NewAuthor(1)
	if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	var evs []*nostr.Event
	for i := range 6 {
		a := fixture.NewAuthor(10 + i)
		authors = append(authors, a)
		evs = append(evs, root.Trust(fixture.P(a.Pubkey), "1", t0))
	}
	for j := range 40 {
		p := fixture.NewAuthor(100 + j)
		people = append(people, p)
		for i, rule := range []struct {
			every int
			value string
		}{{2, "1"}, {3, "1"}, {4, "-1"}, {5, "-1"}, {7, "0"}, {9, "1"}} {
			if j%rule.every == 0 {
				evs = append(evs, authors[i].Trust(fixture.P(p.Pubkey), rule.value, t0+int64(j)))
			}
		}
	}
	evs = append(evs, authors[0].Trust(fixture.XUser("42"), "1", t0, fixture.Scopes("x.com")),
		authors[2].Trust(fixture.XUser("43"), "-1", t0, fixture.Scopes("x.com")))
	for _, ev := range evs {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("push: %s", msg)
		}
	}
	testutil.Eventually(t, "the 40 people in the frontier", func() bool { return eng.Status().Frontier.Size >= 1+6+20 })
	return eng, base, c, authors, people
}

// withoutTimes is an answer (or batch entry) as JSON, without its
// computation time, which two askings never share.
func withoutTimes(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	delete(m, "computeMicros")
	return m
}

// Issue 29 item 1: a batch of 50 subjects over RESOLVE is answered, in
// order, as 50 single questions are; POST /api/v1/resolve gives the same;
// past max_resolve_subjects (stated in NIP-11) the batch is refused.
func TestBatchResolveAnswersAsSingleQuestions(t *testing.T) {
	_, base, c, authors, people := batchWeb(t)

	npub, _ := validation.EncodeNpub(people[3].Pubkey)
	subjects := []string{npub, "user:id:42", "user:id:43", "user:id:44", "not a subject", authors[0].Pubkey}
	for _, p := range people {
		subjects = append(subjects, p.Pubkey)
	}
	subjects = append(subjects, fixture.NewAuthor(999).Pubkey, fixture.NewAuthor(998).Pubkey, strings.Repeat("ab", 32), "post:id:7")
	if len(subjects) != 50 {
		t.Fatalf("%d subjects, want 50", len(subjects))
	}
	q, _ := json.Marshal(map[string]any{"subjects": subjects, "context": "identity"})
	var batch struct {
		Answers      []json.RawMessage `json:"answers"`
		GraphVersion uint64            `json:"graphVersion"`
	}
	if err := json.Unmarshal(c.resolveFrame(string(q)), &batch); err != nil || len(batch.Answers) != len(subjects) {
		t.Fatalf("batch: %v, %d answers for %d subjects", err, len(batch.Answers), len(subjects))
	}
	verdicts := map[string]int{}
	for i, subject := range subjects {
		single, _ := json.Marshal(map[string]any{"subject": subject, "context": "identity"})
		want := withoutTimes(t, c.resolveFrame(string(single)))
		got := withoutTimes(t, batch.Answers[i])
		if subject == "not a subject" {
			if got["subject"] != subject || got["error"] != want["error"] || want["error"] == nil {
				t.Fatalf("the malformed subject: batch %v, single %v", got, want)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("subject %d (%s): the batch's answer differs from the single one:\nbatch  %v\nsingle %v", i, subject, got, want)
		}
		if got["graphVersion"] != float64(batch.GraphVersion) {
			t.Fatalf("subject %d: graphVersion %v, the batch's %d", i, got["graphVersion"], batch.GraphVersion)
		}
		verdicts[got["verdict"].(string)]++
	}
	for _, v := range []string{"trusted", "distrusted", "mixed", "none"} {
		if verdicts[v] == 0 {
			t.Fatalf("no %s answer among %v: the web does not exercise the batch", v, verdicts)
		}
	}

	// HTTP: the same batch as a POST body
	resp, err := http.Post(base+"/api/v1/resolve", "application/json", bytes.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	var overHTTP struct{ Answers []json.RawMessage }
	err = json.NewDecoder(resp.Body).Decode(&overHTTP)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(overHTTP.Answers) != len(subjects) {
		t.Fatalf("POST /api/v1/resolve: %d %v", resp.StatusCode, err)
	}
	for i := range subjects {
		if got, want := withoutTimes(t, overHTTP.Answers[i]), withoutTimes(t, batch.Answers[i]); !reflect.DeepEqual(got, want) {
			t.Fatalf("subject %d over HTTP: %v, over RESOLVE %v", i, got, want)
		}
	}

	// the limit, as NIP-11 states it
	code, body := httpGet(t, base+"/", "Accept", "application/nostr+json")
	var info struct {
		Limitation struct {
			MaxResolveSubjects int `json:"max_resolve_subjects"`
		} `json:"limitation"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &info) != nil || info.Limitation.MaxResolveSubjects != 100 {
		t.Fatalf("NIP-11 max_resolve_subjects: %d %s", code, body)
	}
	tooMany := make([]string, 101)
	for i := range tooMany {
		tooMany[i] = people[i%len(people)].Pubkey
	}
	big, _ := json.Marshal(map[string]any{"subjects": tooMany})
	const refusal = "invalid: 101 subjects exceed the limit of 100 per question (max_resolve_subjects)"
	if got := string(c.resolveFrame(string(big))); !strings.Contains(got, refusal) {
		t.Fatalf("RESOLVE of 101 subjects: %s", got)
	}
	resp, err = http.Post(base+"/api/v1/resolve", "application/json", bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	var refused struct{ Error string }
	_ = json.NewDecoder(resp.Body).Decode(&refused)
	resp.Body.Close()
	if resp.StatusCode != 400 || refused.Error != refusal {
		t.Fatalf("POST of 101 subjects: %d %q", resp.StatusCode, refused.Error)
	}
}

// Issue 29 item 1: GET /api/v1/trusted pages the people the roots trust,
// each with the degree and counts a single answer about them gives; GET
// /api/v1/graph/stats counts people, statements, the frontier per depth
// and the trusted per degree.
func TestTrustedPagesAndGraphStats(t *testing.T) {
	eng, base, _, authors, people := batchWeb(t)

	var listed []string
	degrees := map[string]int{}
	for offset, pages := 0, 0; ; pages++ {
		if pages > 20 {
			t.Fatal("trusted: more pages than people")
		}
		code, body := httpGet(t, fmt.Sprintf("%s/api/v1/trusted?limit=7&offset=%d", base, offset))
		var page struct {
			Total  int
			People []struct {
				Pubkey          string
				Degree, Percent int
			}
			Next *int
			Band struct{ MaxDegree int }
		}
		if code != 200 || json.Unmarshal([]byte(body), &page) != nil || len(page.People) > 7 || page.Band.MaxDegree != 4 {
			t.Fatalf("trusted page at %d: %d %s", offset, code, body)
		}
		for _, p := range page.People {
			listed = append(listed, p.Pubkey)
			degrees[p.Pubkey] = p.Degree
			ans, err := eng.Resolve(t.Context(), Query{Subject: p.Pubkey})
			if err != nil || ans.Verdict != "trusted" || ans.Degree != p.Degree || ans.Percent == nil || *ans.Percent != p.Percent {
				t.Fatalf("listed %s at degree %d (%d%%), but its answer: %+v %v", p.Pubkey, p.Degree, p.Percent, ans, err)
			}
		}
		if page.Next == nil {
			if len(listed) != page.Total {
				t.Fatalf("%d listed over the pages, total %d", len(listed), page.Total)
			}
			break
		}
		offset = *page.Next
	}
	var want []string
	for _, a := range authors {
		want = append(want, a.Pubkey)
	}
	for _, p := range people {
		if ans, _ := eng.Resolve(t.Context(), Query{Subject: p.Pubkey}); ans.Verdict == "trusted" {
			want = append(want, p.Pubkey)
		}
	}
	if slices.Sort(want); !slices.Equal(slices.Sorted(slices.Values(listed)), want) {
		t.Fatalf("trusted lists %d people, the answers trust %d:\n%v\n%v", len(listed), len(want), listed, want)
	}
	if code, body := httpGet(t, base+"/api/v1/trusted?limit=5000"); code != 400 || !strings.Contains(body, "limit must be from 1 to 1000") {
		t.Fatalf("trusted with too large a limit: %d %s", code, body)
	}

	code, body := httpGet(t, base+"/api/v1/graph/stats")
	var st struct {
		People, Subjects, Statements, Ratings, Claims int
		Frontier                                      struct {
			Size    int
			ByDepth []int
		}
		TrustedByDegree []int
		GraphVersion    uint64
	}
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("graph stats: %d %s", code, body)
	}
	byDegree := make([]int, 4)
	for _, d := range degrees {
		byDegree[d-1]++
	}
	statements := eng.Status().Heap.Edges
	spokenOf := 0 // the people some author has a statement about
	for j := range people {
		if j%2 == 0 || j%3 == 0 || j%4 == 0 || j%5 == 0 || j%7 == 0 || j%9 == 0 {
			spokenOf++
		}
	}
	if st.People != 1+6+spokenOf || st.Subjects != 2 || st.Statements != statements || st.Ratings != 0 ||
		!slices.Equal(st.Frontier.ByDepth[:2], []int{1, 6}) || st.Frontier.Size != eng.Status().Frontier.Size ||
		!slices.Equal(st.TrustedByDegree, byDegree) || st.GraphVersion != eng.Status().Heap.GraphVersion {
		t.Fatalf("graph stats %s\nwant people %d, subjects 2, statements %d, trusted by degree %v", body, 7+spokenOf, statements, byDegree)
	}
}
