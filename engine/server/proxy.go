package server

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// clientAddress is the address a WebSocket connection counts against for
// the per-address cap: the peer's own, unless the peer is a reverse proxy
// the user named (Access.Proxies). Behind such a proxy every client would
// otherwise be the proxy's one address. The proxy's X-Forwarded-For is read
// from its end: the last address that is not itself a named proxy is the
// client as the nearest trusted proxy saw it (what a client writes in the
// header itself comes before and is not believed). Without a usable header
// the proxy's own address counts.
func clientAddress(r *http.Request, proxies []string) string {
	peer := remoteIP(r.RemoteAddr)
	if len(proxies) == 0 || !trustedProxy(peer, proxies) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		addr, err := netip.ParseAddr(strings.Trim(strings.TrimSpace(hops[i]), "[]"))
		if err != nil {
			return peer // a hop we cannot read: nothing before it can be placed
		}
		if hop := addr.Unmap().WithZone("").String(); !trustedProxy(hop, proxies) {
			return hop
		}
	}
	return peer
}

// trustedProxy reports whether ip is one of the named proxies.
func trustedProxy(ip string, proxies []string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	return slices.Contains(proxies, addr.Unmap().WithZone("").String())
}
