package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestPeerAllowed(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		allowLAN bool
		want     bool
	}{
		{"127.0.0.1:5000", false, true},
		{"127.8.9.10:5000", false, true},
		{"[::1]:5000", false, true},
		{"192.168.1.20:5000", false, false},
		{"192.168.1.20:5000", true, true},
		{"10.0.0.7:5000", true, true},
		{"172.16.4.4:5000", true, true},
		{"[fd00::1]:5000", true, true},
		{"[fe80::1]:5000", true, true},
		{"8.8.8.8:5000", true, false},
		{"[2001:db8::1]:5000", true, false},
		{"not-an-address", true, false},
	} {
		if got := peerAllowed(tc.addr, tc.allowLAN); got != tc.want {
			t.Errorf("peerAllowed(%q, lan=%v) = %v, want %v", tc.addr, tc.allowLAN, got, tc.want)
		}
	}
}

func TestHostAllowed(t *testing.T) {
	allowed := []string{"relay.example.com"}
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:7447", true},
		{"localhost:7447", true},
		{"LOCALHOST", true},
		{"[::1]:7447", true},
		{"127.0.0.2", true},
		{"relay.example.com", true},
		{"Relay.Example.com.:443", true},
		{"192.168.1.20:7447", true}, // the address the connection arrived on
		{"192.168.1.21:7447", false},
		{"rebind.example:7447", false},
		{"localhost.rebind.example", false},
		{"", false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tc.host
		local := &net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 7447}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
		if _, got := hostAllowed(r, allowed); got != tc.want {
			t.Errorf("hostAllowed(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestOriginAllowed(t *testing.T) {
	allowed := []string{"https://app.example"}
	for _, tc := range []struct {
		origin string
		want   bool
	}{
		{"", true},
		{"chrome-extension://abcdefghijklmnop", true},
		{"moz-extension://1234-5678", true},
		{"safari-web-extension://1234", true},
		{"https://app.example", true},
		{"https://APP.example", true},
		{"http://app.example", false},
		{"https://evil.example", false},
		{"http://127.0.0.1:7447", false}, // a page served on this host is still a page
		{"null", false},
		{"::::", false},
	} {
		if got := originAllowed(tc.origin, allowed); got != tc.want {
			t.Errorf("originAllowed(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
}
