package engine

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

func resolve(t *testing.T, eng *Engine, subject string) Answer {
	t.Helper()
	a, err := eng.Resolve(context.Background(), Query{Subject: subject})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPushedEventsChangeAnswersAndSurviveRestart drives the resolver only
// through pushes over the WebSocket, then restarts the engine on the same
// data directory and expects the same answers from the database.
func TestPushedEventsChangeAnswersAndSurviveRestart(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	root, alice, bob, carol := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3), fixture.NewAuthor(4)
	subject := "user:id:777"
	var before Answer
	func() {
		eng, url, stop := runEngine(t, Options{DataDir: data})
		defer stop()
		if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
			t.Fatal(err)
		}
		c := dialRaw(t, url)
		if a := resolve(t, eng, subject); a.Verdict != "none" || len(a.Evidence) != 0 {
			t.Fatalf("empty store answered %s with %d evidence", a.Verdict, len(a.Evidence))
		}
		v0 := eng.Status().Heap.GraphVersion

		// alice distrusts the subject, but nobody trusts alice yet: no evidence
		c.push(alice.Trust(fixture.XUser("777"), "-1", t0, fixture.Scopes("x.com")))
		if v := eng.Status().Heap.GraphVersion; v <= v0 {
			t.Fatalf("graphVersion %d did not increase after a stored statement (was %d)", v, v0)
		}
		if a := resolve(t, eng, subject); a.Verdict != "none" {
			t.Fatalf("statement by an author outside the frontier gave verdict %s", a.Verdict)
		}
		// root trusts alice: alice joins the frontier, her statement counts
		c.push(root.Trust(fixture.P(alice.Pubkey), "1", t0))
		testutil.Eventually(t, "distrusted verdict via alice", func() bool { return resolve(t, eng, subject).Verdict == "distrusted" })
		a := resolve(t, eng, subject)
		if len(a.Evidence) != 1 || a.Evidence[0].Author != alice.Pubkey || a.Evidence[0].Depth != 1 {
			t.Fatalf("evidence %+v, want alice at depth 1", a.Evidence)
		}
		if len(a.Paths) != 1 || !slices.Equal(a.Paths[0], []string{root.Pubkey, alice.Pubkey}) {
			t.Fatalf("paths %v, want root → alice", a.Paths)
		}
		// root trusts bob, who trusts the subject: mixed
		c.push(root.Trust(fixture.P(bob.Pubkey), "1", t0))
		c.push(bob.Trust(fixture.XUser("777"), "1", t0, fixture.Scopes("x.com")))
		testutil.Eventually(t, "mixed verdict", func() bool { return resolve(t, eng, subject).Verdict == "mixed" })

		// carol is outside the frontier until a session registers her as a root
		c.push(carol.Trust(fixture.XUser("777"), "1", t0+1, fixture.Scopes("x.com")))
		session := dialRaw(t, url)
		b, _ := json.Marshal([]any{"ROOTS", []string{carol.Pubkey}})
		if err := session.write(string(b)); err != nil {
			t.Fatal(err)
		}
		if msg := session.read(); str(msg[0]) != "ROOTS" {
			t.Fatalf("ROOTS answered with %s", msg[0])
		}
		testutil.Eventually(t, "session root in the frontier", func() bool {
			return slices.Contains(eng.Status().Frontier.SessionRoots, carol.Pubkey) && len(resolve(t, eng, subject).Evidence) == 3
		})
		session.ws.CloseNow()
		testutil.Eventually(t, "session root gone with its connection", func() bool {
			return len(eng.Status().Frontier.SessionRoots) == 0 && len(resolve(t, eng, subject).Evidence) == 2
		})
		before = resolve(t, eng, subject)
	}()

	eng, _ := startEngine(t, Options{DataDir: data})
	after := resolve(t, eng, subject)
	if after.Verdict != before.Verdict || len(after.Evidence) != len(before.Evidence) {
		t.Fatalf("after restart: %s with %d evidence, before: %s with %d", after.Verdict, len(after.Evidence), before.Verdict, len(before.Evidence))
	}
	for i := range after.Evidence {
		if after.Evidence[i].EventID != before.Evidence[i].EventID || after.Evidence[i].Depth != before.Evidence[i].Depth {
			t.Fatalf("evidence %d differs after restart: %+v vs %+v", i, after.Evidence[i], before.Evidence[i])
		}
	}
}
