package settings

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// ParseHostName checks a name the user allows in the Host header (SPEC §9
// host allow-list), e.g. the public name of a reverse proxy in front of this
// server, and returns it lower-cased without a trailing dot. It is a DNS
// name or an IP address, without scheme or port: the port is not part of
// the rule.
func ParseHostName(s string) (string, error) {
	name := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")
	switch {
	case name == "":
		return "", errors.New("enter a host name, e.g. relay.example.com")
	case strings.Contains(name, "://"):
		return "", fmt.Errorf("%q is a URL: enter only its host name, e.g. relay.example.com", s)
	case net.ParseIP(strings.Trim(name, "[]")) != nil:
		return strings.Trim(name, "[]"), nil
	case strings.Contains(name, ":"):
		return "", fmt.Errorf("%q has a port: enter the host name alone (any port is allowed)", s)
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return "", fmt.Errorf("%q is not a valid host name", s)
		}
		for _, r := range label {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
				return "", fmt.Errorf("%q is not a valid host name (letters, digits, '-' and '.')", s)
			}
		}
	}
	return name, nil
}

// ParseOrigin checks a web page's origin the user allows (SPEC §9 origins)
// and returns it as browsers send it in the Origin header: http or https,
// the host lower-cased, the scheme's default port left out, no path.
func ParseOrigin(s string) (string, error) {
	typed := strings.TrimSpace(s)
	if typed == "" {
		return "", errors.New("enter an origin, e.g. https://app.example.com")
	}
	u, err := url.Parse(typed)
	if err != nil {
		return "", fmt.Errorf("origin %q does not parse: %v", typed, err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("origin %q must start with http:// or https:// (browser extensions need no rule)", typed)
	case u.Hostname() == "":
		return "", fmt.Errorf("origin %q has no host", typed)
	case u.User != nil || strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("origin %q must be scheme://host[:port] alone, without path or query", typed)
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return u.Scheme + "://" + host, nil
}

// ParseProxyAddress checks the address of a reverse proxy the user trusts to
// name its clients (X-Forwarded-For) and returns it in canonical form: an
// IP address, without port (IPv4 in IPv6 form is unmapped).
func ParseProxyAddress(s string) (string, error) {
	typed := strings.Trim(strings.TrimSpace(s), "[]")
	if typed == "" {
		return "", errors.New("enter the proxy's IP address, e.g. 127.0.0.1")
	}
	addr, err := netip.ParseAddr(typed)
	if err != nil {
		return "", fmt.Errorf("%q is not an IP address (the address the proxy connects from, without a port)", s)
	}
	return addr.Unmap().WithZone("").String(), nil
}
