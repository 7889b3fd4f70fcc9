package engine

import (
	"slices"
	"testing"
	"time"

	"dtp-personal/engine/server"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// The daily full refresh against our own server as the remote: with NIP-77
// an up-to-date store fetches no event again, discovery (keyed by X subject:
// c's statement about user:id:4242) included; with NIP-77 turned off on the
// remote it pages everything again, and stores the same.
func TestRefreshReconcilesWithOurOwnServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		negs       int // remote's MaxNegSessions
		wantNIP77  string
		refetchAll bool // else none
	}{
		{"nip77", server.DefaultLimits().MaxNegSessions, status.NIP77Used, false},
		{"nip77-off", 0, status.NIP77Unsupported, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := buildWoT(time.Now().Unix())
			limits := server.DefaultLimits()
			limits.MaxNegSessions = tc.negs
			_, remote := startEngine(t, Options{ServerLimits: limits})
			c := dialRaw(t, remote)
			for _, ev := range w.events {
				if ok, msg := c.push(ev); !ok {
					t.Fatalf("remote refused fixture event: %s", msg)
				}
			}
			eng := openFollowing(t, w.root.Pubkey, remote)
			syncPasses(t, eng, 1)
			first := storedIDs(t, eng)
			if !slices.Equal(first, w.wanted()) {
				t.Fatalf("first pass stored %d events, want %d", len(first), len(w.wanted()))
			}
			fetched := relayRow(t, eng).EventsFetched

			// yesterday's cursors: the next pass is the daily full refresh
			var aged []store.Cursor
			keys := map[string][]string{"trust": w.frontier, "ratings": w.frontier, "claims": w.frontier, "discovery": {"user:id:4242"}}
			for scope, keys := range keys {
				cs, err := eng.store.Cursors(remote, scope, keys)
				if err != nil {
					t.Fatal(err)
				}
				for _, cur := range cs {
					cur.LastEoseAt -= 86400
					aged = append(aged, cur)
				}
			}
			if len(aged) == 0 {
				t.Fatal("no cursors after the first pass")
			}
			if err := eng.store.SaveCursors(aged); err != nil {
				t.Fatal(err)
			}
			syncPasses(t, eng, 1)
			if got := storedIDs(t, eng); !slices.Equal(got, first) {
				t.Fatalf("the refresh changed the stored set: %d events, want %d", len(got), len(first))
			}
			row := relayRow(t, eng)
			refetched, want := row.EventsFetched-fetched, int64(0)
			if tc.refetchAll {
				want = fetched
			}
			if row.NIP77 != tc.wantNIP77 || refetched != want {
				t.Fatalf("refresh: nip77 %q, %d events fetched again; want %q, %d", row.NIP77, refetched, tc.wantNIP77, want)
			}
			if tc.wantNIP77 == status.NIP77Used && (row.IDsReconciled == 0 || row.ReconcileBytes == 0) {
				t.Fatalf("reconciled refresh reports %d ids, %d bytes", row.IDsReconciled, row.ReconcileBytes)
			}
		})
	}
}

func relayRow(t *testing.T, eng *Engine) status.Relay {
	t.Helper()
	rs := eng.Status().Relays
	if len(rs) != 1 {
		t.Fatalf("%d relays in status, want 1", len(rs))
	}
	return rs[0]
}
