package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// paddedTrust is a 32009 from alice whose unknown tag carries n bytes.
func paddedTrust(alice, bob fixture.Author, at int64, n int) *nostr.Event {
	ev := alice.Trust(fixture.P(bob.Pubkey), "1", at)
	ev.Tags = append(ev.Tags, nostr.Tag{"padding", strings.Repeat("x", n)})
	return alice.Sign(ev)
}

// The queue budgets and the tag cap are the user's settings: a running
// server applies a change to the next event on a connection already open,
// and the budgets reach the server without a restart (Engine.Modify, as
// the CLI and the window change them).
func TestLimitsChangeOnARunningServer(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)

	if ok, msg := c.push(paddedTrust(alice, bob, t0, 10_000)); !ok {
		t.Fatalf("10 kB of tags under the default 64 KiB cap refused: %q", msg)
	}
	l := eng.Settings().Limits
	l.MaxTagKiB, l.MaxQueuedMiB, l.MaxTotalQueuedMiB = 4, 1, 2
	if err := eng.Modify(settings.SetLimits(l)); err != nil {
		t.Fatal(err)
	}
	later := paddedTrust(alice, bob, t0+1, 10_000)
	want := fmt.Sprintf("invalid: tags of %d bytes exceed the limit of 4096 bytes", tagBytesOf(later))
	if ok, msg := c.push(later); ok || msg != want {
		t.Errorf("10 kB of tags under a 4 KiB cap: ok=%v %q, want %q", ok, msg, want)
	}
	if sl := eng.server.Limits(); sl.MaxQueuedBytes != 1<<20 || sl.MaxTotalQueuedBytes != 2<<20 {
		t.Errorf("queue budgets in force %d and %d bytes, want 1 MiB and 2 MiB", sl.MaxQueuedBytes, sl.MaxTotalQueuedBytes)
	}
}

// A non-zero Options.ServerLimits value wins over the user's setting, so a
// test's limits hold whatever the data directory says.
func TestServerLimitsOptionWinsOverSettings(t *testing.T) {
	t.Parallel()
	limits := server.DefaultLimits()
	limits.MaxTagBytes = 50_000
	eng, url := startEngine(t, Options{ServerLimits: limits})
	l := eng.Settings().Limits
	l.MaxTagKiB = 4
	if err := eng.Modify(settings.SetLimits(l)); err != nil {
		t.Fatal(err)
	}
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	if ok, msg := dialRaw(t, url).push(paddedTrust(alice, bob, t0, 10_000)); !ok {
		t.Errorf("10 kB of tags under the option's 50 kB cap refused: %q", msg)
	}
}

// The total queue budget, lowered while the server runs, drops a client
// that stopped reading: two such clients fit the default 64 MiB many times
// over, but not 1 MiB.
func TestLoweredQueueBudgetDropsANonReader(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	storeLargeEvents(t, url, 200) // 12 MB per REQ, past what the sockets buffer
	l := eng.Settings().Limits
	l.MaxQueuedMiB, l.MaxTotalQueuedMiB = 1, 1
	if err := eng.Modify(settings.SetLimits(l)); err != nil {
		t.Fatal(err)
	}
	openNonReaders(t, url, 2)
	metrics := "http" + strings.TrimPrefix(url, "ws") + "/metrics"
	testutil.EventuallyWithin(t, 20*time.Second, "a non-reader dropped past the 1 MiB total", func() bool {
		_, body := httpGet(t, metrics)
		return strings.Contains(body, `dtp_server_refused_total{rule="too-slow"}`)
	})
}
