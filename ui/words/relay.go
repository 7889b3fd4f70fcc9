package words

import (
	"fmt"
	"regexp"
	"strings"

	"dtp-personal/engine/settings"
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

// RelayError classifies a relay's raw error as a person reads it:
// "unreachable: connection refused", "name not found", … The raw text stays
// in the details (and the log); an unknown kind is "failed".
func RelayError(raw string) string {
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

// RelayTrouble is a relay's failure with when it is retried: "unreachable:
// connection refused — retrying with the next pass at 17:43"; "" for a
// relay without an error.
func (f Facts) RelayTrouble(r status.Relay) string {
	words := RelayError(r.LastError)
	if words == "" {
		return ""
	}
	if retry := f.Retry(r); retry != "" {
		words += " — " + retry
	}
	return words
}

// Retry says when a failed relay is tried again, never as a time that has
// passed. Live strategies keep a connection per relay, retried at its time;
// interval passes connect the relays that are due when a pass starts, so a
// relay waits for the first pass at or after its time (Sync now tries every
// relay). "" for a connected relay or one not waiting.
func (f Facts) Retry(r status.Relay) string {
	if r.Connected || r.NextRetry == 0 {
		return ""
	}
	switch {
	case f.Paused:
		return "retrying once sync is resumed"
	case f.Strategy != settings.FrontierInterval:
		return f.Clock.Retrying(r.NextRetry)
	case r.State == status.StateConnecting:
		return "retrying now"
	}
	next := f.NextSync
	switch {
	case next == 0: // no pass scheduled: no server runs, or it has not started its strategy
		return "retrying with the next pass"
	case f.Running || next <= f.Clock.Now().Unix(): // the next pass is scheduled when this one ends
		if f.Interval == 0 {
			return "retrying with the next pass (Sync now, or the daily refresh)"
		}
		return fmt.Sprintf("retrying with the next pass, %d min after this one", f.Interval)
	case r.NextRetry <= next:
		return "retrying with the next pass at " + f.Clock.At(next)
	}
	return "retrying with the first pass after " + f.Clock.At(r.NextRetry)
}

// RelayDoing is a relay's state in words: connected, or what went wrong and
// when it is retried, or waiting for the next pass.
func (f Facts) RelayDoing(r status.Relay) string {
	switch {
	case r.Connected:
		return "connected"
	case r.LastError != "":
		return f.RelayTrouble(r)
	case r.Health == status.HealthDead:
		return "given up after a day of failures — retrying daily"
	case f.Strategy == settings.FrontierInterval:
		return "not connected (connects for each pass)"
	}
	return "not connected"
}

// healthWords are the health states (SPEC §6.5) in words.
var healthWords = map[string]string{
	"":                   "fine",
	status.HealthHealthy: "fine",
	status.HealthBackoff: "failing: each retry waits longer, up to an hour",
	status.HealthHourly:  "failing for over an hour: tried once an hour",
	status.HealthDead:    "failing for over a day: tried once a day",
}

// Health says a relay's health state in words.
func Health(health string) string { return wordsOr(healthWords, health) }

// connectionWords are a relay connection's states in words.
var connectionWords = map[string]string{
	"":                       "not connected",
	status.StateIdle:         "not connected",
	status.StateRunning:      "fetching",
	status.StateConnecting:   "connecting",
	status.StateLive:         "live: receiving as published",
	status.StateReconnecting: "reconnecting",
	status.StateError:        "failed in the last attempt",
	status.StateStopped:      "stopped",
	status.StateComplete:     "not connected: the last pass read all it asked for",
	status.StatePartial:      "not connected: the last pass read part of what it asked for",
}

// Connection says what a relay's connection is doing now.
func Connection(state string) string { return wordsOr(connectionWords, state) }

// wordsOr is the words for an engine's word, or the engine's word itself
// when it is new to us (shown rather than hidden).
func wordsOr(said map[string]string, word string) string {
	if w, ok := said[word]; ok {
		return w
	}
	return word
}
