package ui

import (
	"regexp"
	"strings"

	"dtp-personal/engine/status"
)

// relayFailure is one class of relay failure: how to spot it in the raw
// error text (Go's dial errors, the relay's CLOSED prefixes of NIP-01) and
// what a person reads.
type relayFailure struct {
	marks []string // any of these in the lower-cased raw error
	words string
}

// relayFailures are checked in order: a refused dial also says "dial", a
// CLOSED auth-required also says "closed by relay".
var relayFailures = []relayFailure{
	{[]string{"connection refused"}, "unreachable: connection refused"},
	{[]string{"no such host", "server misbehaving", "name resolution"}, "name not found"},
	{[]string{"network is unreachable", "no route to host", "host is down"}, "unreachable: no route to the relay"},
	{[]string{"x509:", "tls:", "certificate"}, "TLS problem (certificate or encryption)"},
	{[]string{"auth-required", "authentication refused"}, "needs authentication"},
	{[]string{"rate-limited", "rate limit", "too many"}, "rate-limited by the relay"},
	{[]string{"closed by relay: blocked", "closed by relay: invalid", "closed by relay: unsupported",
		"closed by relay: restricted", "closed by relay: error", "notice:"}, "refused our filter"},
	{[]string{"timeout", "timed out", "deadline exceeded", "in time", "stalled", "saturated"}, "timed out"},
	{[]string{"closed by relay", "connection reset", "broken pipe", "eof", "lost", "connection closed", "status = statuscode"},
		"closed by the relay"},
}

// httpStatus finds the HTTP status of a refused WebSocket upgrade.
var httpStatus = regexp.MustCompile(`status code 101 but got (\d{3})`)

// relayErrorWords classifies a relay's raw error as a person reads it:
// "unreachable: connection refused", "name not found", … The raw text stays
// in the details (and the log); an unknown kind is "failed".
func relayErrorWords(raw string) string {
	if raw == "" {
		return ""
	}
	lower := strings.ToLower(raw)
	if m := httpStatus.FindStringSubmatch(lower); m != nil {
		return "refused the connection (HTTP " + m[1] + ")"
	}
	for _, f := range relayFailures {
		for _, mark := range f.marks {
			if strings.Contains(lower, mark) {
				return f.words
			}
		}
	}
	return "failed"
}

// relayTrouble is a relay's failure with when we retry: "unreachable:
// connection refused — retrying in 35 s"; "" for a relay without an error.
func relayTrouble(r status.Relay, c clock) string {
	words := relayErrorWords(r.LastError)
	if words == "" {
		return ""
	}
	if r.NextRetry != 0 && !r.Connected {
		words += " — " + c.retrying(r.NextRetry)
	}
	return words
}
