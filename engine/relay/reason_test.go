package relay_test

import (
	"testing"

	"dtp-personal/engine/relay"
)

func TestReasonPrefix(t *testing.T) {
	for reason, want := range map[string]string{
		"auth-required: sign in":                    relay.PrefixAuthRequired,
		"ERROR: auth-required: sign in":             relay.PrefixAuthRequired, // strfry
		"error: rate-limited: slow down":            relay.PrefixRateLimited,
		" Blocked: too many query results":          relay.PrefixBlocked,
		"error: could not connect to the database":  relay.PrefixError,
		"ERROR: too many concurrent REQs":           relay.PrefixError,
		"invalid: bad filter":                       relay.PrefixInvalid,
		"restricted: members only":                  relay.PrefixRestricted,
		"too many concurrent REQs":                  "",
		"Error parsing: auth-required: in the text": "",
		"": "",
	} {
		if got := relay.ReasonPrefix(reason); got != want {
			t.Errorf("ReasonPrefix(%q) = %q, want %q", reason, got, want)
		}
	}
}
