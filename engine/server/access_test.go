package server

import (
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

func TestOriginMayWrite(t *testing.T) {
	for _, tc := range []struct {
		origin string
		want   bool
	}{
		{"", true},
		{"chrome-extension://abcdefghijklmnop", true},
		{"moz-extension://1234-5678", true},
		{"http://127.0.0.1:7447", true},
		{"https://evil.example", false},
		{"http://localhost:7447", false}, // not the Host the request was sent to
		{"null", false},
		{"::::", false},
	} {
		r := httptest.NewRequest("GET", "http://127.0.0.1:7447/", nil)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		if got := originMayWrite(r); got != tc.want {
			t.Errorf("originMayWrite(%q) = %v, want %v", tc.origin, got, tc.want)
		}
	}
}
