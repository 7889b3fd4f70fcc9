package trustsync

import (
	"context"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// TestCursorIsNewestSeenNotPassStart (issue 9 item 15): a cursor is
// min(newest created_at seen for the author, the REQ's start), 0 when nothing
// was seen. An event published late with an older timestamp is fetched by
// the next pass, and a future-dated event does not push the cursor ahead.
func TestCursorIsNewestSeenNotPassStart(t *testing.T) {
	now := time.Now().Unix()
	root, a, quiet := newPerson("root"), newPerson("a"), newPerson("quiet")
	relay := faultrelay.StartForTest(t, faultrelay.Mode{},
		root.trust(a, "1", now-3600), root.trust(quiet, "1", now-3000), a.trust(root, "1", now-7200))
	rg := newRig(t, settings.FrontierInterval, root, relay.URL)
	pass := func() {
		t.Helper()
		if cov, err := rg.runner.RunOnce(context.Background()); err != nil || cov.State != status.StateComplete {
			t.Fatalf("pass %+v %v", cov, err)
		}
	}
	cursor := func(pk string) int64 {
		t.Helper()
		cs, err := rg.store.Cursors(relay.URL, "trust", []string{pk})
		if err != nil {
			t.Fatal(err)
		}
		return cs[pk].LastSeenCreatedAt
	}
	pass()
	for _, tc := range []struct {
		who  person
		want int64
	}{{root, now - 3000}, {a, now - 7200}, {quiet, 0}} {
		if got := cursor(tc.who.pk); got != tc.want {
			t.Fatalf("cursor of %s = %d, want %d (its newest event; 0 for none)", tc.who.pk[:8], got, tc.want)
		}
	}

	// Published after the pass, dated before it: above the cursor, so fetched.
	late := a.sign(32009, now-1800, nostr.Tags{{"d", "late"}, {"p", quiet.pk}, {"v", "0"}})
	future := root.sign(32009, now+86400, nostr.Tags{{"d", "future"}, {"p", quiet.pk}, {"v", "0"}})
	relay.Publish(late, future)
	pass()
	if !rg.sink.has(late.ID) || !rg.sink.has(future.ID) {
		t.Fatal("the late or the future-dated event was not fetched")
	}
	if got := cursor(a.pk); got != now-1800 {
		t.Fatalf("cursor of a = %d, want the late event's %d", got, now-1800)
	}
	if got := cursor(root.pk); got > time.Now().Unix() {
		t.Fatalf("a future-dated event pushed root's cursor to %d, past the pass's start", got)
	}
}

// TestCompletedCursorValue: min(max(previous, newest seen), REQ start).
func TestCompletedCursorValue(t *testing.T) {
	start, now := time.Unix(200, 0), time.Unix(210, 0)
	for _, tc := range []struct {
		prev, seen, want int64
	}{
		{0, 0, 0},     // nothing ever seen
		{0, 100, 100}, // the newest event, not the start
		{0, 300, 200}, // future-dated: held at the start
		{150, 100, 150},
		{150, 180, 180},
	} {
		prev := map[string]store.Cursor{}
		if tc.prev > 0 {
			prev["k"] = store.Cursor{LastSeenCreatedAt: tc.prev}
		}
		seen := newestSeen{}
		if tc.seen > 0 {
			seen["k"] = tc.seen
		}
		c := completed("r", "trust", []string{"k"}, prev, seen, start, now)[0]
		if c.LastSeenCreatedAt != tc.want || c.LastEoseAt != now.Unix() {
			t.Errorf("prev %d seen %d: cursor %+v, want %d", tc.prev, tc.seen, c, tc.want)
		}
	}
}
