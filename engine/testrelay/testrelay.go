// Package testrelay starts a real relay on 127.0.0.1 (the project's fault
// relay, engine/internal/faultrelay) for tests outside engine/, which
// cannot import it: the window's display-name cache fills itself from it
// through its own Refresh, as the window does.
package testrelay

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
)

// Start starts a relay holding evs for the test's duration and returns its
// ws:// URL.
func Start(tb testing.TB, evs ...*nostr.Event) string {
	tb.Helper()
	return faultrelay.StartForTest(tb, faultrelay.Mode{}, evs...).URL
}

// Stalled starts a relay that accepts every REQ and never answers it.
func Stalled(tb testing.TB) string {
	tb.Helper()
	return faultrelay.StartForTest(tb, faultrelay.Mode{Stall: true}).URL
}
