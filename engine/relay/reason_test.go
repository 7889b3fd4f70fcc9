package relay

import "testing"

func TestReasonPrefix(t *testing.T) {
	for reason, want := range map[string]string{
		"auth-required: sign in":                    prefixAuthRequired,
		"ERROR: auth-required: sign in":             prefixAuthRequired, // strfry
		"error: rate-limited: slow down":            prefixRateLimited,
		" Blocked: too many query results":          prefixBlocked,
		"error: could not connect to the database":  prefixError,
		"ERROR: too many concurrent REQs":           prefixError,
		"invalid: bad filter":                       prefixInvalid,
		"restricted: members only":                  prefixRestricted,
		"too many concurrent REQs":                  "",
		"Error parsing: auth-required: in the text": "",
		"": "",
	} {
		if got := reasonPrefix(reason); got != want {
			t.Errorf("ReasonPrefix(%q) = %q, want %q", reason, got, want)
		}
	}
}
