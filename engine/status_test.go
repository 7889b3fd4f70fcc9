package engine

import (
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// TestSubscribeCoalescesBursts: the engine is the one status coalescer, so a
// storm of changes reaches a subscriber as at most four snapshots a second,
// and nothing reaches it once cancel has returned.
func TestSubscribeCoalescesBursts(t *testing.T) {
	t.Parallel()
	eng, _ := startEngine(t, Options{})
	var got atomic.Int64
	cancel := eng.Subscribe(func(status.Snapshot) { got.Add(1) })
	const storm = 2 * time.Second
	start := time.Now()
	for time.Since(start) < storm {
		eng.notify()
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	if n, limit := got.Load(), int64(elapsed/(250*time.Millisecond))+2; n == 0 || n > limit {
		t.Fatalf("%d snapshots in %v of changes; want 1..%d", n, elapsed, limit)
	}
	cancel()
	after := got.Load()
	eng.notify()
	time.Sleep(1500 * time.Millisecond) // past the once-a-second snapshot
	if n := got.Load(); n != after {
		t.Fatalf("%d snapshots after cancel", n-after)
	}
}

// TestNoRelayPassIsNoSync: a pass with no relay to sync from fetched
// nothing, so the status keeps saying never synced (issue 31: "Last sync
// 7 s ago" before any sync); a pass that tried a relay is a sync, failed
// or not.
func TestNoRelayPassIsNoSync(t *testing.T) {
	t.Parallel()
	eng, _ := startEngine(t, Options{})
	testutil.Eventually(t, "the pass with no relays", func() bool {
		return slices.Contains(eng.sync.Status().Coverage.Reasons, status.ReasonNoRelays)
	})
	if s := eng.Status(); s.LastSync != 0 || eng.sync.Status().LastSync == 0 {
		t.Fatalf("status last sync %d after a pass with no relays (runner's %d), want 0", s.LastSync, eng.sync.Status().LastSync)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String() // nobody listens: the pass tries and fails
	l.Close()
	if err := eng.Modify(settings.AddRelay("ws://" + closed)); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "a pass that tried the relay", func() bool { return eng.Status().LastSync != 0 })
}

// A coverage reason the user has dealt with goes at once, not after the
// next pass, from the status and the answers alike (the window shows what
// the status says: TestWindowAndStatusJSONGiveTheSameCoverageReasons).
func TestHeldReasonsDropWhatNoLongerHolds(t *testing.T) {
	removed, kept := status.RelayFailed("wss://removed.example"), status.RelayFailed("wss://kept.example")
	for _, c := range []struct {
		name     string
		reasons  []string
		relays   []string
		lastSync int64
		want     []string
	}{
		{"no relays, still none", []string{status.ReasonNoRelays}, nil, 0, []string{status.ReasonNoRelays}},
		{"a relay added before any pass with one", []string{status.ReasonNoRelays}, []string{"wss://kept.example"}, 0, []string{status.ReasonNeverSynced}},
		{"a relay added after a pass with another", []string{status.ReasonNoRelays}, []string{"wss://kept.example"}, 100, []string{}},
		{"never synced until a pass", []string{status.ReasonNeverSynced}, nil, 100, []string{}},
		{"a failed relay removed, another kept", []string{removed, kept, status.ReasonFrontierTruncated}, []string{"wss://kept.example"}, 100, []string{kept, status.ReasonFrontierTruncated}},
		{"the running pass is the runner's now, not the last pass's", []string{status.ReasonSyncRunning}, nil, 100, []string{}},
	} {
		if got := heldReasons(c.reasons, c.relays, c.lastSync); !slices.Equal(got, c.want) {
			t.Errorf("%s: held %q, want %q", c.name, got, c.want)
		}
	}
}
