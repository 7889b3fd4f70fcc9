// Package namestest serves kind-0 profiles from a relay on loopback (the
// project's fault relay), so that tests outside engine/ can fill a names
// cache through its own Refresh, as the window does.
package namestest

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/faultrelay"
)

// Relay starts a relay holding profiles (signed kind-0 events) for the
// test's duration and returns its ws:// URL.
func Relay(tb testing.TB, profiles ...*nostr.Event) string {
	tb.Helper()
	return faultrelay.StartForTest(tb, faultrelay.Mode{}, profiles...).URL
}
