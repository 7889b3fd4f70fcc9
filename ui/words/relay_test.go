package words

import (
	"testing"
	"time"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// Raw errors as the relay package and Go's dialer write them, in words.
func TestRelayErrorWords(t *testing.T) {
	for raw, want := range map[string]string{
		`connect ws://127.0.0.1:1: failed to WebSocket dial: failed to send handshake request: Get "http://127.0.0.1:1": dial tcp 127.0.0.1:1: connect: connection refused`: "unreachable: connection refused",
		`connect wss://nope.invalid: failed to WebSocket dial: dial tcp: lookup nope.invalid on 127.0.0.53:53: no such host`:                                                "name not found",
		`connect wss://r.example: failed to WebSocket dial: tls: failed to verify certificate: x509: certificate has expired`:                                               "TLS problem (certificate or encryption)",
		`connect wss://r.example: failed to WebSocket dial: dial tcp 10.0.0.1:443: i/o timeout`:                                                                             "timed out",
		`relay did not finish the page in time`: "timed out",
		`connection to wss://r.example lost: failed to get reader: received close frame: status = StatusGoingAway and reason = ""`: "closed by the relay",
		`closed by relay: auth-required: we only serve members`:                                                                    "needs authentication",
		`closed by relay: rate-limited: slow down`:                                                                                 "rate-limited by the relay",
		`closed by relay: blocked: filter too broad`:                                                                               "refused our filter",
		`connect wss://r.example: failed to WebSocket dial: expected handshake response status code 101 but got 502`:               "refused the connection (HTTP 502)",
		`dial tcp 10.0.0.1:443: connect: network is unreachable`:                                                                   "unreachable: no route to the relay",
		`something new`: "failed",
		``:              "",
	} {
		if got := RelayError(raw); got != want {
			t.Errorf("RelayError(%q) = %q, want %q", raw, got, want)
		}
	}
}

// A retry is said as a time to come, or as what it waits for: an interval
// pass tries only the relays due when it starts, so a relay whose retry time
// has passed waits for the next pass (issue 31: "retrying now" stayed for
// minutes, and the Relays tab showed a next retry in the past).
func TestRetryIsNeverInThePast(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	c := Clock{Now: func() time.Time { return now }, Zone: time.UTC}
	failed := status.Relay{LastError: "dial tcp: connect: connection refused", State: status.StateError}
	interval := Facts{Clock: c, Strategy: settings.FrontierInterval, Interval: 15, NextSync: now.Unix() + 14*60}
	live := Facts{Clock: c, Strategy: settings.FrontierContinuous, NextSync: now.Unix() + 3600}
	for _, tc := range []struct {
		name      string
		facts     Facts
		nextRetry int64
		want      string
	}{
		{"interval, retry time passed", interval, now.Unix() - 600, "unreachable: connection refused — retrying with the next pass at 12:14"},
		{"interval, retry before the next pass", interval, now.Unix() + 35, "unreachable: connection refused — retrying with the next pass at 12:14"},
		{"interval, retry after the next pass", interval, now.Unix() + 20*60, "unreachable: connection refused — retrying with the first pass after 12:20"},
		{"interval, during a pass", func() Facts { f := interval; f.Running, f.NextSync = true, now.Unix()-5; return f }(),
			now.Unix() - 1, "unreachable: connection refused — retrying with the next pass, 15 min after this one"},
		{"manual, pass time passed", func() Facts { f := interval; f.Interval, f.NextSync = 0, now.Unix()-5; return f }(),
			now.Unix() - 1, "unreachable: connection refused — retrying with the next pass (Sync now, or the daily refresh)"},
		{"no pass scheduled", func() Facts { f := interval; f.NextSync = 0; return f }(), now.Unix() - 1,
			"unreachable: connection refused — retrying with the next pass"},
		{"paused", func() Facts { f := interval; f.Paused = true; return f }(), now.Unix() - 1,
			"unreachable: connection refused — retrying once sync is resumed"},
		{"live, retry to come", live, now.Unix() + 35, "unreachable: connection refused — retrying in 35 s"},
		{"live, retry due", live, now.Unix(), "unreachable: connection refused — retrying now"},
	} {
		r := failed
		r.NextRetry = tc.nextRetry
		if got := tc.facts.RelayTrouble(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	r := failed
	r.NextRetry, r.Connected = now.Unix()+35, true // a connected relay is not waiting for a retry
	if got := interval.RelayTrouble(r); got != "unreachable: connection refused" {
		t.Errorf("trouble of a connected relay = %q", got)
	}
}

// The next pass is never said as a time that has passed: while a pass runs,
// the next one is scheduled when it ends.
func TestNextPassIsNeverInThePast(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	c := Clock{Now: func() time.Time { return now }, Zone: time.UTC}
	f := Facts{Clock: c, Strategy: settings.FrontierInterval, Interval: 15, NextSync: now.Unix() + 600}
	if got := f.Next(); got != "in 10 min (12:10)" {
		t.Errorf("next pass %q", got)
	}
	f.Running, f.NextSync = true, now.Unix()-30
	if got := f.Next(); got != "15 min after this pass ends" {
		t.Errorf("next pass during a pass %q", got)
	}
	f.Running, f.NextSync = false, 0
	if got := f.Next(); got != "not scheduled" {
		t.Errorf("next pass before any %q", got)
	}
}
