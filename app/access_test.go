package main

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The access rules are scripted like the other settings, show in `status
// --json`, and a running server applies them within seconds.
func TestAccessRulesReachARunningServer(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, data)
	const page = "https://App.Example:443"
	if err := dialWithOrigin(s.addr, page); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a page not yet allowed: %v, want 403", err)
	}
	for _, step := range []struct {
		args []string
		out  string
	}{
		{[]string{"access", "allow-host", "Relay.Example.COM."}, "added relay.example.com\n"},
		{[]string{"access", "allow-origin", page}, "added https://app.example\n"},
		{[]string{"access", "allow-origin", "http://localhost:3000"}, "added http://localhost:3000\n"},
		{[]string{"access", "disallow-origin", "http://localhost:3000/"}, "removed http://localhost:3000\n"},
		{[]string{"access", "trust-proxy", "::ffff:10.0.0.7"}, "added 10.0.0.7\n"},
		{[]string{"access", "trust-proxy", "[fd00::1]"}, "added fd00::1\n"},
		{[]string{"access", "untrust-proxy", "fd00::1"}, "removed fd00::1\n"},
		{[]string{"access", "list"}, "peers    loopback\n" +
			"hosts    localhost, loopback and listen addresses, relay.example.com\n" +
			"origins  no Origin (native clients), browser extensions, https://app.example\n" +
			"proxies  10.0.0.7 (X-Forwarded-For names their clients)\n"},
		{[]string{"access", "list", "--json"}, "{\n  \"allowLan\": false,\n  \"allowedHosts\": [\n    \"relay.example.com\"\n  ],\n" +
			"  \"allowedOrigins\": [\n    \"https://app.example\"\n  ],\n  \"trustedProxies\": [\n    \"10.0.0.7\"\n  ]\n}\n"},
	} {
		out, err := cliRun(t, data, step.args...)
		if err != nil || out != step.out {
			t.Fatalf("%v printed %q (%v), want %q", step.args, out, err, step.out)
		}
	}
	type settings struct{ AllowedHosts, AllowedOrigins []string }
	awaitStatus(t, data, s, "the access rules", func(st struct{ Settings settings }) bool {
		return slices.Equal(st.Settings.AllowedHosts, []string{"relay.example.com"}) &&
			slices.Equal(st.Settings.AllowedOrigins, []string{"https://app.example"})
	})
	if err := dialWithOrigin(s.addr, "https://app.example"); err != nil {
		t.Fatalf("an allowed page: %v", err)
	}
	if err := dialWithOrigin(s.addr, "http://localhost:3000"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a page allowed, then disallowed: %v, want 403", err)
	}

	for _, bad := range [][]string{
		{"access", "allow-host", "https://relay.example.com"},
		{"access", "allow-host", "relay.example.com:443"},
		{"access", "allow-origin", "app.example"},
		{"access", "allow-origin", "https://app.example/path"},
		{"access", "trust-proxy", "10.0.0.7:8080"},
	} {
		if _, err := cliRun(t, data, bad...); err == nil || strings.HasPrefix(err.Error(), "exit status 2:") {
			t.Errorf("%v: %v, want a refusal of the value", bad, err)
		}
	}
	for _, usage := range [][]string{{"access", "allow-host"}, {"access", "bogus"}} {
		if _, err := cliRun(t, data, usage...); err == nil || !strings.HasPrefix(err.Error(), "exit status 2:") {
			t.Errorf("%v: %v, want a usage error (exit 2)", usage, err)
		}
	}
}

// dialWithOrigin opens and closes a WebSocket as a page of that origin.
func dialWithOrigin(addr, origin string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
	if err != nil {
		return err
	}
	return ws.CloseNow()
}
