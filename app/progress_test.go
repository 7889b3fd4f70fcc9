package main

import (
	"testing"

	"dtp-personal/engine/status"
)

// The progress line of `sync --once` and `status` says keys, events, rate
// and the time left, and no time left before the pass can tell it.
func TestProgressLine(t *testing.T) {
	p := status.Progress{Pass: "trust", Done: 640, Total: 1600, Events: 52310, EventsPerSecond: 8120.4}
	for _, tc := range []struct {
		left int64
		want string
	}{
		{0, "trust     640/1600 · 52310 events, 8120/s"}, // not known yet
		{40, "trust     640/1600 · 52310 events, 8120/s · about 40 s left"},
		{130, "trust     640/1600 · 52310 events, 8120/s · about 2 min left"},
		{7500, "trust     640/1600 · 52310 events, 8120/s · about 2 h 5 min left"},
	} {
		p.SecondsLeft = tc.left
		if got := progressLine(p); got != tc.want {
			t.Errorf("%d s left: %q, want %q", tc.left, got, tc.want)
		}
	}
}
