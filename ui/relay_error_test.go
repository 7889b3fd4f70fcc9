package ui

import (
	"testing"
	"time"

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
		if got := relayErrorWords(raw); got != want {
			t.Errorf("relayErrorWords(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestRelayTroubleSaysWhenWeRetry(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	c := clock{now: func() time.Time { return now }, zone: time.UTC}
	r := status.Relay{LastError: "dial tcp: connect: connection refused", NextRetry: now.Unix() + 35}
	if got, want := relayTrouble(r, c), "unreachable: connection refused — retrying in 35 s"; got != want {
		t.Errorf("relayTrouble = %q, want %q", got, want)
	}
	r.Connected = true // a connected relay is not waiting for a retry
	if got := relayTrouble(r, c); got != "unreachable: connection refused" {
		t.Errorf("relayTrouble of a connected relay = %q", got)
	}
}
