package ui

import (
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	wot "dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
	"dtp-personal/ui/words"
)

// The window and `status --json` (the HTTP API's status) give the same
// coverage reasons in the same situation: the engine decides which of the
// last pass's reasons still hold (issue 28 §3: the window used to drop a
// removed relay's failure that the API still reported).
func TestWindowAndStatusJSONGiveTheSameCoverageReasons(t *testing.T) {
	eng := servedEngine(t)
	if err := eng.Modify(settings.AddRoot(wot.NewAuthor(1).Pubkey)); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	failing := "ws://" + l.Addr().String() // nobody listens: the pass fails on it
	l.Close()
	if err := eng.Modify(settings.AddRelay(failing)); err != nil {
		t.Fatal(err)
	}
	statusJSON := func() status.Snapshot {
		t.Helper()
		resp, err := http.Get("http://" + eng.ListenAddr() + "/api/v1/status")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s status.Snapshot
		if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	testutil.EventuallyWithin(t, 10*time.Second, "a pass that found the relay failing", func() bool {
		return slices.Contains(statusJSON().Coverage.Reasons, status.RelayFailed(failing))
	})
	g := newEngineGUI(t, eng, tabStatus)
	same := func(situation string) {
		t.Helper()
		s := statusJSON()
		g.render(s)
		want := "—"
		if len(s.Coverage.Reasons) > 0 {
			want = words.FactsOf(s, g.clock).Reasons(s.Coverage.Reasons)
		}
		if got := g.status.reasons.Text; got != want {
			t.Errorf("%s: the window shows reasons %q, status --json says %q", situation, got, s.Coverage.Reasons)
		}
		if got := g.status.coverage.Text; got != s.Coverage.State {
			t.Errorf("%s: the window shows coverage %q, status --json %q", situation, got, s.Coverage.State)
		}
	}
	same("a relay failing")
	if err := eng.Modify(settings.RemoveRelay(failing)); err != nil {
		t.Fatal(err)
	}
	s := statusJSON()
	if slices.Contains(s.Coverage.Reasons, status.RelayFailed(failing)) {
		t.Errorf("status --json still reports the removed relay's failure: %q", s.Coverage.Reasons)
	}
	same("the failing relay removed")
}
