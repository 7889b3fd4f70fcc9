package main

import (
	"testing"

	"dtp-personal/engine/status"
)

// The progress line of `sync --once` and `status` says keys, events, rate,
// how many of them were new to us (the engine's count of the pass) and the
// time left, and no time left before the pass can tell it.
func TestProgressLine(t *testing.T) {
	p := status.Progress{Pass: "trust", Done: 640, Total: 1600, Events: 52310, EventsPerSecond: 8120.4, Stored: 40100}
	for _, tc := range []struct {
		left int64
		want string
	}{
		{0, "trust     640/1600 · 52310 events, 8120/s, 40100 stored"}, // not known yet
		{40, "trust     640/1600 · 52310 events, 8120/s, 40100 stored · about 40 s left"},
		{130, "trust     640/1600 · 52310 events, 8120/s, 40100 stored · about 2 min left"},
		{7500, "trust     640/1600 · 52310 events, 8120/s, 40100 stored · about 2 h 5 min left"},
	} {
		p.SecondsLeft = tc.left
		if got := progressLine(p); got != tc.want {
			t.Errorf("%d s left: %q, want %q", tc.left, got, tc.want)
		}
	}
}
