package engine

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/health"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// TestSyncSettledAsksOnlyTheWindows runs `sync --once`'s two ways against a
// second instance of our server: after a pass that settled, SyncSettled
// makes the next one without the graph when no relay holds anything new,
// and leaves it to a whole pass (done false, nothing recorded) when a relay
// does, when the trust data or the settings changed, or on another day.
func TestSyncSettledAsksOnlyTheWindows(t *testing.T) {
	t.Parallel()
	now := time.Now().Unix()
	// statements half a minute into the window the passes probe (from their
	// first check less lateArrival), so that the outsiders' are in it
	w := buildWoT(now + 30)
	// a hint that starts to count in two hours, in a statement of another
	// context (so no hop of the walk changes then): the claims a pass
	// refreshes change then, and the record stands until then
	cNpub, _ := validation.EncodeNpub(w.c.Pubkey)
	hintFrom := now + 7200
	later := w.a.Trust(fixture.XUser("5151", cNpub), "0", now, fixture.Scopes("x.com"), fixture.Context("code"), fixture.Window(hintFrom, 0))
	remote := startRemote(t, append(w.events, later))
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := Options{DataDir: data, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	settled := func(want bool) status.Coverage {
		t.Helper()
		cov, done, err := SyncSettled(ctx, opts)
		if err != nil || done != want {
			t.Fatalf("SyncSettled: done %v, err %v; want done %v", done, err, want)
		}
		return cov
	}
	withEngine := func(fn func(*Engine)) {
		t.Helper()
		eng := openQuiet(t, data)
		defer eng.Close()
		fn(eng)
	}
	record := func() *passRecord {
		t.Helper()
		var rec *passRecord
		withEngine(func(eng *Engine) { rec = readPassRecord(eng.store, opts.Logger) })
		return rec
	}

	settled(false) // never synced
	withEngine(func(eng *Engine) {
		follow(t, eng, w.root.Pubkey, remote)
		syncPasses(t, eng, 1)
	})
	// the first pass fetched by author: the outsiders' statements of the
	// last hour are on the relay, never fetched, so they may be new
	settled(false)
	withEngine(func(eng *Engine) { syncPasses(t, eng, 1) }) // its window probe fetched them, and kept none
	rec := record()
	if rec.Settled == nil || rec.Graph == nil || rec.Graph.Coverage.State != status.StateComplete {
		t.Fatalf("after a pass with nothing new: record %+v, want settled, complete", rec)
	}
	if rec.Graph.NextChange != hintFrom {
		t.Fatalf("record stands until %d, want %d (the hint's window opens)", rec.Graph.NextChange, hintFrom)
	}
	// claims are not asked again on the day they were fetched: no window
	var scopes []string
	for _, win := range rec.Settled.Windows {
		scopes = append(scopes, win.Scope)
	}
	if !slices.Equal(scopes, []string{"discovery", "ratings", "trust"}) || len(rec.Settled.Windows[2].Outsiders) != 5 {
		t.Fatalf("settled windows %+v, want one per family the pass ran, the trust one with the 5 outsiders' statements", rec.Settled.Windows)
	}

	time.Sleep(1100 * time.Millisecond) // the record's time is in seconds
	if cov := settled(true); cov.State != status.StateComplete {
		t.Fatalf("settled pass coverage %+v, want the last pass's (complete)", cov)
	}
	again := record()
	if again.At <= rec.At || again.Graph == nil || !slices.Equal(again.Settled.Windows[0].Outsiders, rec.Settled.Windows[0].Outsiders) {
		t.Fatalf("after the settled pass: record at %d (was %d), %+v", again.At, rec.At, again)
	}
	var stored []string
	withEngine(func(eng *Engine) { stored = storedIDs(t, eng) })

	// a frontier author's new statement on the relay: a whole pass fetches it
	carol := fixture.NewAuthor(130)
	fresh := w.b.Trust(fixture.P(carol.Pubkey), "1", now)
	if ok, msg := dialRaw(t, remote).push(fresh); !ok {
		t.Fatal(msg)
	}
	settled(false)
	withEngine(func(eng *Engine) {
		syncPasses(t, eng, 1)
		if got := storedIDs(t, eng); !slices.Contains(got, fresh.ID) || len(got) != len(stored)+1 {
			t.Fatalf("the whole pass stored %d events (had %d), want the new statement", len(got), len(stored))
		}
	})
	settled(true)

	// trust data written here, not by a pass
	withEngine(func(eng *Engine) {
		if _, err := eng.Submit(ctx, w.a.Trust(fixture.P(carol.Pubkey), "1", now), "test"); err != nil {
			t.Fatal(err)
		}
	})
	settled(false)
	withEngine(func(eng *Engine) { syncPasses(t, eng, 1) })
	settled(true)

	// the settings walked
	withEngine(func(eng *Engine) {
		if err := eng.Modify(settings.SetLimits(withTotalAuthors(eng.Settings().Limits, 3))); err != nil {
			t.Fatal(err)
		}
	})
	settled(false)
	withEngine(func(eng *Engine) { syncPasses(t, eng, 1) })
	settled(true)

	// a relay that failed lately: the whole pass tries it, once
	withEngine(func(eng *Engine) {
		h, _, err := eng.store.RelayHealth(health.ProfileTrust, remote)
		if err != nil {
			t.Fatal(err)
		}
		h.State, h.ConsecutiveFailures = status.HealthBackoff, 1
		if err := eng.store.SaveRelayHealth(health.ProfileTrust, h); err != nil {
			t.Fatal(err)
		}
	})
	settled(false)
	withEngine(func(eng *Engine) { syncPasses(t, eng, 1) })
	settled(true)

	// the next UTC day: the daily full refresh is due
	withEngine(func(eng *Engine) {
		rec := readPassRecord(eng.store, opts.Logger)
		rec.Settled.Day--
		writePassRecord(eng.store, opts.Logger, *rec)
	})
	settled(false)
}
