package server

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// peerAllowed reports whether the remote address may use the server at all:
// loopback always, private networks only when the user opened the server to
// the local network (SPEC §9).
func peerAllowed(remoteAddr string, allowLAN bool) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	return allowLAN && (ip.IsPrivate() || ip.IsLinkLocalUnicast())
}

// extensionSchemes are browser-extension origins: the AttentionX extension
// pushes from one of these, and an extension is installed by the user.
var extensionSchemes = map[string]bool{
	"chrome-extension": true, "moz-extension": true, "safari-web-extension": true,
}

// originMayWrite reports whether a request's Origin may push events. Clients
// that are not browsers send no Origin; a web page from another site must not
// be able to write into the user's trust store (SPEC §9).
func originMayWrite(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if extensionSchemes[u.Scheme] {
		return true
	}
	return strings.EqualFold(u.Host, r.Host)
}
