package server

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Access is the user's access rules, read at each request so that a change
// applies at once (SPEC §9).
type Access struct {
	AllowLAN bool     // private-network peers may connect
	Hosts    []string // names besides the server's own that Host may carry
	Origins  []string // web pages that may use the server
	// Proxies are reverse proxies the user named (IP addresses): their
	// connections count against the per-address cap as the client they
	// forward (clientAddress).
	Proxies []string
}

// peerAllowed reports whether the remote address may use the server at all:
// loopback always, private networks only when the user opened the server to
// the local network (SPEC §9).
func peerAllowed(remoteAddr string, allowLAN bool) bool {
	ip := net.ParseIP(remoteIP(remoteAddr))
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	return allowLAN && (ip.IsPrivate() || ip.IsLinkLocalUnicast())
}

// remoteIP is the address part of a request's RemoteAddr.
func remoteIP(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	return host
}

// hostAllowed reports whether the request names this server in Host: the
// defence against DNS rebinding, where a page of a foreign name resolves to
// this machine and thus passes every address check. Served are localhost,
// loopback addresses, the address the connection arrived on (the listen
// address, or a LAN address when opened to the network) and names the user
// allowed, e.g. a reverse proxy's.
func hostAllowed(r *http.Request, allowed []string) (host string, ok bool) {
	host = strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "localhost" || slices.Contains(allowed, host) {
		return host, true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host, false
	}
	if ip.IsLoopback() {
		return host, true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	tcp, _ := local.(*net.TCPAddr)
	return host, tcp != nil && tcp.IP.Equal(ip)
}

// extensionSchemes are browser-extension origins: the AttentionX extension
// pushes from one of these, and an extension is installed by the user.
var extensionSchemes = map[string]bool{
	"chrome-extension": true, "moz-extension": true, "safari-web-extension": true,
}

// originAllowed reports whether a request's Origin may use the server, for
// reading and writing alike: answers reveal the user's roots, i.e. their
// identity. Clients that are not browsers send no Origin; extensions are
// installed by the user; a web page only when the user allowed its origin.
func originAllowed(origin string, allowed []string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err == nil && extensionSchemes[u.Scheme] {
		return true
	}
	return slices.Contains(allowed, strings.ToLower(origin))
}

// checkAccess applies the host and origin rules; a refused request gets its
// answer here, naming the rule and how to allow it, and false.
func (s *Server) checkAccess(w http.ResponseWriter, r *http.Request, a Access) bool {
	if host, ok := hostAllowed(r, a.Hosts); !ok {
		s.refused.Inc("host-not-allowed")
		http.Error(w, fmt.Sprintf("misdirected request: this server does not answer to host %q (host allow-list, "+
			"against DNS rebinding). If you reach it under that name, allow it: dtp-personal access allow-host %s",
			host, host), http.StatusMisdirectedRequest)
		return false
	}
	origin := r.Header.Get("Origin")
	if !originAllowed(origin, a.Origins) {
		s.refused.Inc("origin-not-allowed")
		http.Error(w, fmt.Sprintf("forbidden: web page origin %q may not read from or write to this server "+
			"(origin rule). If you trust that page, allow it: dtp-personal access allow-origin %s",
			origin, origin), http.StatusForbidden)
		return false
	}
	if origin != "" {
		// CORS only to origins the rules served, never a permissive "*"
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
	}
	return true
}

// fromOwner reports whether r presents the owner token (Config.OwnerToken).
func (s *Server) fromOwner(r *http.Request) bool {
	want := s.cfg.OwnerToken
	if want == "" {
		return false
	}
	got := r.Header.Get("Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte("Bearer "+want)) == 1
}
