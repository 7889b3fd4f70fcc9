package main

import (
	"fmt"
	"net"
	"os"
	"strings"

	"dtp-personal/engine"
	"dtp-personal/engine/settings"
)

// accessHosts and accessOrigins are the access rules of SPEC §9: names the
// server answers to besides its own, and web pages that may use it.
var (
	accessHosts = listCommand{
		name: "access host", what: "a host name", normalize: settings.ParseHostName,
		add: settings.AllowHost, remove: settings.DisallowHost,
		list: func(s settings.Settings) []string { return s.AllowedHosts },
	}
	accessOrigins = listCommand{
		name: "access origin", what: "an origin", normalize: settings.ParseOrigin,
		add: settings.AllowOrigin, remove: settings.DisallowOrigin,
		list: func(s settings.Settings) []string { return s.AllowedOrigins },
	}
	// accessProxies are reverse proxies in front of the server, whose
	// X-Forwarded-For names the client counted against the per-address cap
	accessProxies = listCommand{
		name: "access proxy", what: "an IP address", normalize: settings.ParseProxyAddress,
		add: settings.TrustProxy, remove: settings.UntrustProxy,
		list: func(s settings.Settings) []string { return s.TrustedProxies },
	}
)

// cmdAccess runs `access allow-host NAME | disallow-host NAME |
// allow-origin ORIGIN | disallow-origin ORIGIN | allow-lan | disallow-lan |
// trust-proxy ADDR | untrust-proxy ADDR | list [--json]`.
func cmdAccess(c *cli) error {
	asJSON := c.fs.Bool("json", false, "print JSON (list)")
	if err := c.parse(2); err != nil {
		return err
	}
	verb, arg := c.positional(0), c.positional(1)
	rule := accessOrigins
	switch verb {
	case "list", "":
		if err := c.atMost(1); err != nil {
			return err
		}
		return listAccess(c, *asJSON)
	case "allow-lan", "disallow-lan":
		if err := c.atMost(1); err != nil {
			return err
		}
		return setLAN(c, verb == "allow-lan")
	case "allow-host", "disallow-host", "trust-proxy", "untrust-proxy":
		rule = accessHosts
		if strings.HasSuffix(verb, "proxy") {
			rule = accessProxies
		}
		fallthrough
	case "allow-origin", "disallow-origin":
		if arg == "" {
			return fmt.Errorf("%w: access %s needs %s", errUsage, verb, rule.what)
		}
		return runList(c, rule, []string{listVerb(verb), arg}, false)
	}
	return fmt.Errorf("%w: access %s: use allow-host, disallow-host, allow-origin, disallow-origin, allow-lan, disallow-lan, trust-proxy, untrust-proxy or list", errUsage, verb)
}

// listVerb maps an access verb to the list verb it is.
func listVerb(verb string) string {
	if strings.HasPrefix(verb, "dis") || strings.HasPrefix(verb, "un") {
		return "remove"
	}
	return "add"
}

func listAccess(c *cli, asJSON bool) error {
	st, s, err := openSettings(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if asJSON {
		return printJSON(map[string]any{"allowLan": s.AllowLAN, "allowedHosts": s.AllowedHosts, "allowedOrigins": s.AllowedOrigins,
			"trustedProxies": s.TrustedProxies})
	}
	peers := "loopback"
	if s.AllowLAN {
		peers += ", local network (" + privateRanges + ")"
	}
	fmt.Printf("peers    %s\n", peers)
	fmt.Printf("hosts    localhost, loopback and listen addresses%s\n", listed(s.AllowedHosts))
	fmt.Printf("origins  no Origin (native clients), browser extensions%s\n", listed(s.AllowedOrigins))
	if len(s.TrustedProxies) > 0 {
		fmt.Printf("proxies  %s (X-Forwarded-For names their clients)\n", strings.Join(s.TrustedProxies, ", "))
	}
	return nil
}

// privateRanges are the local-network addresses allow-lan lets in, as the
// window's "Allow connections from the local network" does.
const privateRanges = "10/8, 172.16/12, 192.168/16, fc00::/7, link-local"

// setLAN runs `access allow-lan | disallow-lan`: whether local-network peers
// may connect. A running server applies it within a second; the address it
// listens on stays as it is, so a loopback listener is pointed out.
func setLAN(c *cli, allow bool) error {
	st, s, err := openSettings(c)
	if err != nil {
		return err
	}
	defer st.Close()
	switch {
	case s.AllowLAN == allow && allow:
		fmt.Println("already allowed: local network (" + privateRanges + ")")
	case s.AllowLAN == allow:
		fmt.Println("already loopback only: the local network is not allowed")
	default:
		if err := settings.Modify(st, settings.SetAllowLAN(allow)); err != nil {
			return err
		}
		if !allow {
			fmt.Println("disallowed the local network: loopback only")
			return nil
		}
		fmt.Println("allowed the local network (" + privateRanges + ")")
	}
	if !allow {
		return nil
	}
	listen := s.Listen
	if r, ok := engine.FindRunning(c.data()); ok {
		listen = r.Listen
	}
	if host, port, err := net.SplitHostPort(listen); err == nil && (host == "localhost" || net.ParseIP(host).IsLoopback()) {
		fmt.Fprintf(os.Stderr, "the server listens on %s, which other machines cannot reach: start it with "+
			"`dtp-personal serve --headless --listen 0.0.0.0:%s` (or set the listen address in the window)\n", listen, port)
	}
	return nil
}

// listed appends the user's entries to a line of built-in ones.
func listed(entries []string) string {
	if len(entries) == 0 {
		return ""
	}
	return ", " + strings.Join(entries, ", ")
}
