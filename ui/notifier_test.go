package ui

import (
	"dtp-personal/engine/settings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"dtp-personal/engine/status"
)

// notifications records what a notifier sends, at a time the test moves.
type notifications struct {
	sent []string
	at   time.Time
}

func newRecordedNotifier() (*notifier, *notifications) {
	rec := &notifications{at: fixtureNow}
	n := newNotifier(func(m *fyne.Notification) { rec.sent = append(rec.sent, m.Title+" | "+m.Content) },
		func() time.Time { return rec.at })
	return n, rec
}

func withGoneRelay(health string) status.Snapshot {
	s := fixture()
	s.Relays[1].Health = health
	return s
}

func TestNotifierTellsOfADeadRelayOncePerQuarterHour(t *testing.T) {
	n, rec := newRecordedNotifier()
	c := clock{Now: func() time.Time { return fixtureNow }, Zone: time.UTC}
	n.observe(withGoneRelay(status.HealthDead), c) // dead at start-up is not news
	n.observe(withGoneRelay(status.HealthBackoff), c)
	n.observe(withGoneRelay(status.HealthDead), c)
	want := "DTP Personal: Relay marked dead | wss://gone.example: dial tcp: connection refused"
	if len(rec.sent) != 1 || rec.sent[0] != want {
		t.Fatalf("sent %q, want [%q]", rec.sent, want)
	}
	rec.at = rec.at.Add(5 * time.Minute) // flapping: quiet
	n.observe(withGoneRelay(status.HealthBackoff), c)
	n.observe(withGoneRelay(status.HealthDead), c)
	rec.at = rec.at.Add(notifyEvery)
	n.observe(withGoneRelay(status.HealthBackoff), c)
	n.observe(withGoneRelay(status.HealthDead), c)
	if len(rec.sent) != 2 {
		t.Fatalf("sent %d notifications over 20 min of flapping, want 2: %q", len(rec.sent), rec.sent)
	}
}

func TestNotifierTellsOfADiskFullAndAPassPartialAfterComplete(t *testing.T) {
	n, rec := newRecordedNotifier()
	c := clock{Now: func() time.Time { return fixtureNow }, Zone: time.UTC}
	complete := fixture()
	complete.State, complete.Coverage = status.StateComplete, status.NewCoverage()
	partial := fixture()
	partial.State, partial.Coverage = status.StatePartial, status.NewCoverage(status.RelayFailed("wss://gone.example"))
	full := fixture()
	full.State, full.Coverage = status.StateError, status.NewCoverage("store: database or disk is full")
	for _, s := range []status.Snapshot{complete, partial, full} {
		n.observe(s, c)
	}
	want := []string{
		"DTP Personal: Sync ended partial | Was complete; now partial: relay wss://gone.example: unreachable: connection refused — retrying with the next pass at 12:10",
		"DTP Personal: Disk full | The engine cannot store events until space is freed.",
	}
	if len(rec.sent) != 2 || rec.sent[0] != want[0] || rec.sent[1] != want[1] {
		t.Fatalf("sent %q, want %q", rec.sent, want)
	}
}

func TestNotificationsOffInSettings(t *testing.T) {
	n, rec := newRecordedNotifier()
	c := clock{Now: func() time.Time { return fixtureNow }, Zone: time.UTC}
	quiet := withGoneRelay(status.HealthBackoff)
	quiet.Settings.Notify = false
	dead := withGoneRelay(status.HealthDead)
	dead.Settings.Notify = false
	n.observe(quiet, c)
	n.observe(dead, c)
	if len(rec.sent) != 0 {
		t.Fatalf("sent %q with notifications off", rec.sent)
	}

	g, eng := newTestGUI(t, tabSettings)
	g.settings.notify.SetChecked(false)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) { s.Notify = false })
}
