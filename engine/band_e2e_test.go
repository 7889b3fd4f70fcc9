package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// resolveFrame sends one RESOLVE frame and returns its RESOLVED payload.
func (c *rawClient) resolveFrame(query string) json.RawMessage {
	c.t.Helper()
	if err := c.write(`["RESOLVE","q",` + query + `]`); err != nil {
		c.t.Fatal(err)
	}
	for {
		if msg := c.read(); str(msg[0]) == "RESOLVED" {
			return msg[2]
		}
	}
}

// Issue 18: the max degree and follow band are settings, a RESOLVE or an
// /api/v1/resolve may override them per query, and the answer says which
// values it used with the counts behind its percentage.
func TestBandOverridesOverWebSocketAndHTTP(t *testing.T) {
	t.Parallel()
	eng, wsURL := startEngine(t, Options{})
	base := "http" + strings.TrimPrefix(wsURL, "ws")
	root, alice, bob, subject := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3), fixture.NewAuthor(4)
	if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, wsURL)
	for _, ev := range []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0), root.Trust(fixture.P(bob.Pubkey), "1", t0),
		alice.Trust(fixture.P(subject.Pubkey), "1", t0), bob.Trust(fixture.P(subject.Pubkey), "-1", t0),
	} {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("push refused: %s", msg)
		}
	}
	testutil.Eventually(t, "the web in the frontier", func() bool { return eng.Status().Frontier.Size == 4 })

	decode := func(raw []byte) Answer {
		t.Helper()
		var a Answer
		if err := json.Unmarshal(raw, &a); err != nil || a.Verdict == "" {
			t.Fatalf("not an answer: %s", raw)
		}
		return a
	}
	// Settings' band: one trust, one distrust at degree 2 is 50%: mixed.
	a := decode(c.resolveFrame(`{"subject":"` + subject.Pubkey + `"}`))
	if a.Verdict != "mixed" || a.Degree != 2 || *a.Percent != 50 || a.Band.MaxDegree != 4 || a.Band.FollowThreshold != 75 || a.Band.Red != 25 ||
		len(a.Degrees) != 1 || a.Degrees[0].Trust != 1 || a.Degrees[0].Distrust != 1 {
		t.Fatalf("default band: %+v", a)
	}
	if a := decode(c.resolveFrame(`{"subject":"` + subject.Pubkey + `","followThreshold":50}`)); a.Verdict != "trusted" || a.Band.FollowThreshold != 50 {
		t.Fatalf("RESOLVE followThreshold 50: %+v", a)
	}
	if raw := c.resolveFrame(`{"subject":"` + subject.Pubkey + `","maxDegree":9}`); !strings.Contains(string(raw), "maxDegree must be from 1 to 5") {
		t.Fatalf("RESOLVE maxDegree 9: %s", raw)
	}

	get := func(query string) (int, string) {
		return httpGet(t, base+"/api/v1/resolve?subject="+subject.Pubkey+query)
	}
	if code, body := get("&red=60"); code != 200 || decode([]byte(body)).Verdict != "distrusted" {
		t.Fatalf("HTTP red 60: %d %s", code, body)
	}
	if code, body := get("&maxDegree=1"); code != 200 || decode([]byte(body)).Verdict != "none" {
		t.Fatalf("HTTP maxDegree 1 (only the root's own word counts): %d %s", code, body)
	}
	for query, want := range map[string]string{"&maxDegree=9": "maxDegree must be from 1 to 5", "&red=a": "red is not a whole number"} {
		if code, body := get(query); code != 400 || !strings.Contains(body, want) {
			t.Fatalf("HTTP %s: %d %s", query, code, body)
		}
	}

	// The settings are the defaults of every later question.
	l := eng.Settings().Limits
	l.FollowThreshold, l.Red = 50, 50
	if err := eng.Modify(settings.SetLimits(l)); err != nil {
		t.Fatal(err)
	}
	if code, body := get(""); code != 200 || decode([]byte(body)).Verdict != "trusted" {
		t.Fatalf("after limits followThreshold 50: %d %s", code, body)
	}
	l.Red = 51
	if err := eng.Modify(settings.SetLimits(l)); err == nil || !strings.Contains(err.Error(), "red must not be above followThreshold") {
		t.Fatalf("red above the threshold accepted: %v", err)
	}
}
