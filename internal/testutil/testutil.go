// Package testutil holds the helpers the tests of engine/, app/ and ui/ share: polling for a
// condition, a reference filter matcher and the process CPU time.
package testutil

import (
	"testing"
	"time"
)

// Eventually polls cond for up to 5 s (long enough for the frontier's 1 s
// recompute and a sync round trip on a busy machine).
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	EventuallyWithin(t, 5*time.Second, what, cond)
}

// EventuallyWithin polls cond for up to d; tests whose point is a latency
// bound name it.
func EventuallyWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s not reached within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
