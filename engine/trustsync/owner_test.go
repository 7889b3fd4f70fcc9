package trustsync

import (
	"context"
	"slices"
	"testing"

	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// The runner owns what its passes found: the event caps that cut the last
// pass, and a status row for every configured relay from its stored health.
func TestRunnerOwnsEventCapsAndRelayRows(t *testing.T) {
	w := buildWoT(1_700_000_000)
	r := faultrelay.StartForTest(t, faultrelay.Mode{}, w.all...)
	untouched := "ws://127.0.0.1:1"
	st := openStore(t, r.URL, untouched)
	stored := health.Health{URL: untouched, State: status.HealthBackoff, ConsecutiveFailures: 3, LastError: "refused"}
	if err := st.SaveRelayHealth(health.ProfileTrust, stored); err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	conf := newSettings(settings.FrontierInterval)
	conf.Limits.MaxEvents = 2
	runner := New(Config{Store: st, Sink: sink, Frontier: newFrontier(sink, w.root.pk), Settings: conf})

	rows := runner.Status().Relays
	i := slices.IndexFunc(rows, func(r status.Relay) bool { return r.URL == untouched })
	if len(rows) != 2 || i < 0 || rows[i].Health != status.HealthBackoff ||
		rows[i].Failures != 3 || rows[i].LastError != "refused" || rows[i].State != status.StateIdle {
		t.Fatalf("relay rows before any pass %+v, want both relays, the untouched one from stored health", rows)
	}
	if _, err := runner.Pass(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	caps := runner.Status().EventCaps
	if i := slices.IndexFunc(caps, func(c status.Truncation) bool { return c.Reason == status.ReasonMaxEvents }); i < 0 || caps[i].Cut == 0 {
		t.Fatalf("event caps %+v, want maxEvents cutting authors", caps)
	}
	changeSettings(runner, func(s *settings.Settings) { s.Limits.MaxEvents = settings.DefaultLimits().MaxEvents })
	if _, err := runner.Pass(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if caps := runner.EventCaps(); len(caps) != 0 {
		t.Fatalf("event caps %+v after an uncut pass, want none", caps)
	}

	// authors that left the frontier lose their cursors
	if cs, _ := st.Cursors(r.URL, "trust", []string{w.a.pk}); len(cs) != 1 {
		t.Fatalf("cursor of a frontier author: %d, want 1", len(cs))
	}
	runner.AuthorsLeft([]string{w.a.pk})
	if cs, _ := st.Cursors(r.URL, "trust", []string{w.a.pk}); len(cs) != 0 {
		t.Fatalf("cursor kept after the author left: %+v", cs)
	}
}
