package trustsync

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// refreshRig is a relay holding n of root's ratings (several negentropy
// rounds' worth) and a rig that already synced them by paging and persists
// what it ingests, so the next full refresh can reconcile.
type refreshRig struct {
	*rig
	relay *faultrelay.Relay
	root  person
	evs   []*nostr.Event
	now   int64
}

func newRefreshRig(t *testing.T, n int) *refreshRig {
	now := time.Now().Unix()
	root := newPerson("root")
	fr := &refreshRig{root: root, now: now}
	for i := range n {
		fr.evs = append(fr.evs, fr.rating(i, now-int64(n-i)*60))
	}
	fr.relay = faultrelay.StartForTest(t, faultrelay.Mode{}, fr.evs...)
	fr.rig = newRig(t, settings.FrontierInterval, root, fr.relay.URL)
	fr.sink.persist = fr.store
	fr.pass(t, status.StateComplete)
	if fr.relay.NegAnswers() != 0 {
		t.Fatal("the first fetch reconciled although nothing was held")
	}
	return fr
}

func (fr *refreshRig) rating(i int, at int64) *nostr.Event {
	subject := newPerson(fmt.Sprint("subject", i))
	return fr.root.sign(32014, at, nostr.Tags{{"d", fmt.Sprint("r", i)}, {"p", subject.pk}, {"score", "50"}, {"s", "x.com"}})
}

func (fr *refreshRig) pass(t *testing.T, want string) status.Coverage {
	t.Helper()
	cov, err := fr.runner.RunOnce(context.Background())
	if err != nil || cov.State != want {
		t.Fatalf("pass: coverage %+v err %v, want %s", cov, err, want)
	}
	return cov
}

// dayOld moves every cursor's last EOSE to yesterday: the next pass is the
// daily full refresh. Counters start from zero.
func (fr *refreshRig) dayOld(t *testing.T) map[string]store.Cursor {
	t.Helper()
	cs := fr.cursors(t)
	var out []store.Cursor
	for _, c := range cs {
		c.LastEoseAt -= 86400
		out = append(out, c)
	}
	if err := fr.store.SaveCursors(out); err != nil {
		t.Fatal(err)
	}
	fr.relay.ResetCounters()
	return fr.cursors(t)
}

func (fr *refreshRig) cursors(t *testing.T) map[string]store.Cursor {
	t.Helper()
	out := map[string]store.Cursor{}
	for _, scope := range []string{"trust", "ratings", "claims"} {
		cs, err := fr.store.Cursors(fr.relay.URL, scope, []string{fr.root.pk})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out[scope] = c
		}
	}
	return out
}

func (fr *refreshRig) relayStatus(t *testing.T) status.Relay {
	t.Helper()
	st := fr.runner.Status()
	if len(st.Relays) != 1 {
		t.Fatalf("%d relays in status", len(st.Relays))
	}
	return st.Relays[0]
}

// (a) A refresh of an up-to-date frontier transfers no event: the relay's
// set is settled by NIP-77 alone, and the cursors move as after EOSE.
func TestRefreshInSyncTransfersNoEvents(t *testing.T) {
	fr := newRefreshRig(t, 600)
	fr.dayOld(t)
	fr.pass(t, status.StateComplete)
	if n := fr.relay.EventsSent(); n != 0 {
		t.Fatalf("the relay sent %d events to an up-to-date refresh, want 0", n)
	}
	if fr.relay.NegAnswers() == 0 {
		t.Fatal("the refresh was not reconciled")
	}
	c := fr.cursors(t)["ratings"]
	if utcDay(c.LastEoseAt) != utcDay(time.Now().Unix()) || c.LastSeenCreatedAt != int64(fr.evs[len(fr.evs)-1].CreatedAt) {
		t.Fatalf("ratings cursor %+v: want EOSE today and the newest rating's created_at %d", c, fr.evs[len(fr.evs)-1].CreatedAt)
	}
	rs := fr.relayStatus(t)
	if rs.NIP77 != status.NIP77Used || rs.IDsReconciled != 600 || rs.ReconcileBytes == 0 {
		t.Fatalf("status nip77=%q ids=%d bytes=%d, want used, 600, >0", rs.NIP77, rs.IDsReconciled, rs.ReconcileBytes)
	}
}

// (b) After 1% of the relay's events are new, exactly those are fetched.
func TestRefreshFetchesOnlyWhatIsMissing(t *testing.T) {
	fr := newRefreshRig(t, 600)
	var fresh []*nostr.Event
	for i := range 6 {
		fresh = append(fresh, fr.rating(1000+i, fr.now-int64(i)*7000)) // spread among the old ones
	}
	fr.relay.Publish(fresh...)
	fr.dayOld(t)
	fr.pass(t, status.StateComplete)
	if n := fr.relay.EventsSent(); n != int64(len(fresh)) {
		t.Fatalf("the relay sent %d events, want the %d new ones", n, len(fresh))
	}
	for _, ev := range fresh {
		if !fr.sink.has(ev.ID) {
			t.Fatalf("new event %s not stored", ev.ID[:8])
		}
	}
	if rs := fr.relayStatus(t); rs.IDsReconciled != 606 {
		t.Fatalf("ids reconciled %d, want 606", rs.IDsReconciled)
	}
}

// (c) A relay that answers NEG-OPEN with NEG-ERR is paged instead, with the
// same stored result, and is not asked again on the next refresh.
func TestRefreshFallsBackToPagingOnNegErr(t *testing.T) {
	fr := newRefreshRig(t, 100)
	fresh := fr.rating(1000, fr.now-30)
	fr.relay.Publish(fresh)
	fr.relay.SetMode(faultrelay.Mode{NegRefusal: "NEG-ERR"})
	fr.dayOld(t)
	fr.pass(t, status.StateComplete)
	if fr.relay.NegAnswers() != 1 || !fr.sink.has(fresh.ID) || len(fr.sink.ids()) != 101 {
		t.Fatalf("neg answers %d, new event stored %v, %d events held: want 1, true, 101",
			fr.relay.NegAnswers(), fr.sink.has(fresh.ID), len(fr.sink.ids()))
	}
	if n := fr.relay.EventsSent(); n < 101 {
		t.Fatalf("the relay sent %d events: the batch was not paged", n)
	}
	if c := fr.cursors(t)["ratings"]; c.LastSeenCreatedAt != int64(fresh.CreatedAt) || c.Attempts != 0 {
		t.Fatalf("ratings cursor %+v after fallback, want newest %d and no failure", c, fresh.CreatedAt)
	}
	if rs := fr.relayStatus(t); rs.NIP77 != status.NIP77Unsupported {
		t.Fatalf("status nip77 %q, want unsupported", rs.NIP77)
	}
	fr.dayOld(t)
	fr.pass(t, status.StateComplete)
	if n := fr.relay.NegAnswers(); n != 0 {
		t.Fatalf("the refusing relay was asked NIP-77 again (%d answers) within 24 h", n)
	}
}

// (d) A relay that stops answering in the middle of a reconciliation fails
// the batch: coverage partial, cursors' positions unchanged.
func TestRefreshStalledMidReconciliationFailsTheRelay(t *testing.T) {
	fr := newRefreshRig(t, 600)
	fr.relay.Publish(fr.rating(1000, fr.now-30000)) // a difference, so there is a second round
	// root's trust and claims, fetched before and empty, are reconciled
	// first (one answer each); the ratings' NEG-OPEN is answered, its next
	// message is not
	fr.relay.SetMode(faultrelay.Mode{NegStallAfter: 3})
	before := fr.dayOld(t)
	cov := fr.pass(t, status.StatePartial)
	if !slices.Contains(cov.Reasons, status.RelayFailed(fr.relay.URL)) {
		t.Fatalf("reasons %v, want relay-failed:%s", cov.Reasons, fr.relay.URL)
	}
	if fr.relay.NegAnswers() < 2 {
		t.Fatalf("%d negentropy messages reached the relay: the stall was not mid-reconciliation", fr.relay.NegAnswers())
	}
	c := fr.cursors(t)["ratings"]
	b := before["ratings"]
	if c.LastSeenCreatedAt != b.LastSeenCreatedAt || c.LastEoseAt != b.LastEoseAt || !strings.Contains(c.LastError, "stalled") {
		t.Fatalf("ratings cursor %+v, want positions of %+v kept and the stall recorded", c, b)
	}
}

// Held events the relay also has count toward the family's cap as the
// paging they replace would send them: an old event we lack, beyond the cap
// in the relay's newest-first order, is not stored.
func TestRefreshCountsHeldEventsTowardCaps(t *testing.T) {
	fr := newRefreshRig(t, 100)
	old := fr.rating(1000, fr.now-1000*60) // older than every held rating
	fr.relay.Publish(old)
	changeSettings(fr.runner, func(s *settings.Settings) { s.Limits.MaxRatingEvents = 50 })
	fr.dayOld(t)
	fr.pass(t, status.StatePartial)
	if fr.relay.NegAnswers() == 0 {
		t.Fatal("the refresh was not reconciled")
	}
	if fr.sink.has(old.ID) {
		t.Fatal("an event past the rating cap in newest-first order was stored")
	}
	if caps := fr.runner.EventCaps(); len(caps) != 1 || caps[0].Reason != status.ReasonMaxRatingEvents {
		t.Fatalf("event caps %+v, want maxRatingEvents", caps)
	}
}

// What NIP-77 did in the last refresh is kept with the relay's health: a
// runner started later on the same store (another process's status, after
// sync --once) shows the same figures, not "unknown".
func TestRefreshFiguresOutliveTheProcess(t *testing.T) {
	fr := newRefreshRig(t, 600)
	fr.dayOld(t)
	fr.pass(t, status.StateComplete)
	want := fr.relayStatus(t).Refresh
	if want.NIP77 != status.NIP77Used {
		t.Fatalf("refresh %+v, want NIP-77 used", want)
	}
	later := New(Config{Store: fr.store, Sink: newMemSink(), Frontier: staticFrontier{}, Settings: newSettings(settings.FrontierInterval)})
	later.TrackRelays()
	st := later.Status()
	if len(st.Relays) != 1 || st.Relays[0].Refresh != want {
		t.Fatalf("a later runner's status %+v, want the refresh %+v", st.Relays, want)
	}
}
