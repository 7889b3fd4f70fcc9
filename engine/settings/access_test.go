package settings

import "testing"

func TestParseHostNameAndOrigin(t *testing.T) {
	for _, tc := range []struct {
		parse func(string) (string, error)
		typed string
		want  string // "" = refused
	}{
		{ParseHostName, " Relay.Example.COM. ", "relay.example.com"},
		{ParseHostName, "192.168.1.5", "192.168.1.5"},
		{ParseHostName, "[fd00::1]", "fd00::1"},
		{ParseHostName, "relay.example.com:443", ""},
		{ParseHostName, "https://relay.example.com", ""},
		{ParseHostName, "-bad.example", ""},
		{ParseHostName, "a..b", ""},
		{ParseHostName, "under_score.example", ""},
		{ParseOrigin, "HTTPS://App.Example:443/", "https://app.example"},
		{ParseOrigin, "http://localhost:3000", "http://localhost:3000"},
		{ParseOrigin, "http://app.example:80", "http://app.example"},
		{ParseOrigin, "app.example", ""},
		{ParseOrigin, "chrome-extension://abc", ""},
		{ParseOrigin, "https://app.example/page", ""},
		{ParseOrigin, "https://user@app.example", ""},
		{ParseOrigin, "null", ""},
	} {
		got, err := tc.parse(tc.typed)
		if tc.want == "" && err == nil || tc.want != "" && (err != nil || got != tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.typed, got, err, tc.want)
		}
	}
}
