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

// TestCompletedCursorValue: min(max(previous, newest seen), REQ start); a
// cursor the EOSE leaves as it was, completed earlier the same UTC day, is
// not written again.
func TestCompletedCursorValue(t *testing.T) {
	const day0 = 1_800_000_000 - 1_800_000_000%86400 // a UTC midnight
	start, now := time.Unix(day0+200, 0), time.Unix(day0+210, 0)
	for _, tc := range []struct {
		prev, prevEose, seen, want int64 // want -1: not written
	}{
		{0, 0, 0, 0},                   // nothing ever seen
		{0, 0, day0 + 100, day0 + 100}, // the newest event, not the start
		{0, 0, day0 + 300, day0 + 200}, // future-dated: held at the start
		{day0 + 150, 0, day0 + 100, day0 + 150},
		{day0 + 150, 0, day0 + 180, day0 + 180},
		{day0 + 150, day0 + 100, day0 + 120, -1},                 // as it was, the same day
		{day0 + 150, day0 + 100, day0 + 180, day0 + 180},         // moved
		{day0 + 150, day0 + 100 - 86400, day0 + 120, day0 + 150}, // completed yesterday: today's EOSE counts
	} {
		prev := map[string]store.Cursor{}
		if tc.prev > 0 {
			prev["k"] = store.Cursor{LastSeenCreatedAt: tc.prev, LastEoseAt: tc.prevEose}
		}
		seen := newestSeen{}
		if tc.seen > 0 {
			seen["k"] = tc.seen
		}
		cs := completed("r", "trust", []string{"k"}, prev, seen, start, now)
		switch {
		case tc.want < 0 && len(cs) != 0:
			t.Errorf("prev %d seen %d: cursor %+v written, want none", tc.prev, tc.seen, cs)
		case tc.want >= 0 && (len(cs) != 1 || cs[0].LastSeenCreatedAt != tc.want || cs[0].LastEoseAt != now.Unix()):
			t.Errorf("prev %d seen %d: cursors %+v, want %d", tc.prev, tc.seen, cs, tc.want)
		}
	}
}
