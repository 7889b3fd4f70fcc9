package settings

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// NormalizeRelayURL checks a relay URL (ws:// or wss://, a host, no
// credentials or fragment) and returns its canonical form: scheme and host
// lower-cased, the scheme's default port and one trailing "/" removed. Equal
// relays thus compare equal, whoever typed or announced them.
func NormalizeRelayURL(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", errors.New("enter a relay URL, e.g. wss://relay.example.com")
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("relay URL %q does not parse: %v", s, err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return "", fmt.Errorf("relay URL %q must start with ws:// or wss://", s)
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("relay URL %q has no host", s)
	}
	if u.User != nil {
		return "", fmt.Errorf("relay URL %q cannot carry a user name or password", s)
	}
	if u.Fragment != "" {
		return "", fmt.Errorf("relay URL %q cannot have a #fragment", s)
	}
	u.Host = strings.ToLower(u.Host)
	if port := u.Port(); u.Scheme == "ws" && port == "80" || u.Scheme == "wss" && port == "443" {
		u.Host = strings.TrimSuffix(u.Host, ":"+port)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	return u.String(), nil
}
