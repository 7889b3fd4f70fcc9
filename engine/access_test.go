package engine

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// browser reaches the engine as a web page does: the URL names whatever host
// the page is on (and the request carries it as Host and Origin), while the
// connection goes to the engine, as after a DNS rebinding.
type browser struct {
	t      *testing.T
	client *http.Client
}

func newBrowser(t *testing.T, engineAddr string) browser {
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, engineAddr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return browser{t: t, client: &http.Client{Transport: tr, Timeout: 5 * time.Second}}
}

// get answers status, body and the CORS header of a GET with that Origin.
func (b browser) get(url, origin string) (int, string, string) {
	b.t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header.Get("Access-Control-Allow-Origin")
}

// dial opens a WebSocket with that Origin; on refusal it returns the HTTP
// status and body of the refused upgrade.
func (b browser) dial(url, origin string) (*rawClient, int, string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: b.client, HTTPHeader: h})
	if err != nil {
		if resp == nil {
			b.t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, string(body)
	}
	b.t.Cleanup(func() { ws.CloseNow() })
	return &rawClient{t: b.t, ws: ws}, http.StatusSwitchingProtocols, ""
}

// resolve sends RESOLVE and returns the answer's paths.
func (c *rawClient) resolve(subject string) [][]string {
	c.t.Helper()
	if err := c.write(`["RESOLVE","q",{"subject":"` + subject + `"}]`); err != nil {
		c.t.Fatal(err)
	}
	for {
		msg := c.read()
		if str(msg[0]) != "RESOLVED" {
			continue
		}
		var ans struct{ Paths [][]string }
		if err := json.Unmarshal(msg[2], &ans); err != nil {
			c.t.Fatal(err)
		}
		return ans.Paths
	}
}

func TestRebindingPageIsRefused(t *testing.T) {
	t.Parallel()
	eng, _ := startEngine(t, Options{})
	_, port, _ := net.SplitHostPort(eng.ListenAddr())
	page := "rebind.example:" + port
	b := newBrowser(t, eng.ListenAddr())

	_, code, body := b.dial("ws://"+page+"/", "http://"+page)
	if code != http.StatusMisdirectedRequest || !strings.Contains(body, "dtp-personal access allow-host rebind.example") {
		t.Fatalf("WebSocket (EVENT, REQ) from a rebound name: %d %q", code, body)
	}
	code, body, _ = b.get("http://"+page+"/api/v1/status", "http://"+page)
	if code != http.StatusMisdirectedRequest || !strings.Contains(body, `host "rebind.example"`) {
		t.Fatalf("status from a rebound name: %d %q", code, body)
	}

	// a name the user allowed (a reverse proxy's) passes the host rule, but
	// a page served under it is still a web page of its own origin
	if err := eng.Modify(settings.AllowHost("rebind.example")); err != nil {
		t.Fatal(err)
	}
	if code, _, _ = b.get("http://"+page+"/api/v1/status", ""); code != http.StatusOK {
		t.Fatalf("status under an allowed name: %d", code)
	}
	if _, code, body = b.dial("ws://"+page+"/", "http://"+page); code != http.StatusForbidden {
		t.Fatalf("page under an allowed name: %d %q", code, body)
	}
}

func TestForeignPageMayNeitherReadNorWrite(t *testing.T) {
	t.Parallel()
	eng, wsURL := startEngine(t, Options{})
	base := "http" + strings.TrimPrefix(wsURL, "ws")
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	dialRaw(t, wsURL).push(root.Trust(fixture.P(alice.Pubkey), "1", t0))
	testutil.Eventually(t, "alice in the frontier", func() bool { return eng.Status().Frontier.Size == 2 })
	b := newBrowser(t, eng.ListenAddr())

	const evil, app = "https://evil.example", "https://app.example"
	_, code, body := b.dial(wsURL, evil)
	if code != http.StatusForbidden || !strings.Contains(body, "dtp-personal access allow-origin "+evil) {
		t.Fatalf("WebSocket (EVENT, REQ, RESOLVE, ROOTS) from a foreign page: %d %q", code, body)
	}
	for _, path := range []string{"/api/v1/resolve?subject=" + alice.Pubkey, "/api/v1/status", "/"} {
		if code, body, cors := b.get(base+path, evil); code != http.StatusForbidden || cors != "" {
			t.Fatalf("GET %s from a foreign page: %d %q, CORS %q", path, code, body, cors)
		}
	}

	if err := eng.Modify(settings.AllowOrigin(app)); err != nil {
		t.Fatal(err)
	}
	if code, _, cors := b.get(base+"/api/v1/status", app); code != http.StatusOK || cors != app {
		t.Fatalf("status from an allowed page: %d, CORS %q", code, cors)
	}
	bob := fixture.NewAuthor(3)
	for i, origin := range []string{app, "", "chrome-extension://abcdefghijklmnop"} {
		c, code, body := b.dial(wsURL, origin)
		if c == nil {
			t.Fatalf("origin %q refused: %d %q", origin, code, body)
		}
		ev := alice.Trust(fixture.P(bob.Pubkey), "1", t0+int64(i))
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("origin %q may not write: %s", origin, msg)
		}
		if evs := c.req(nostr.Filter{IDs: []string{ev.ID}}); len(evs) != 1 {
			t.Fatalf("origin %q may not read its event back", origin)
		}
		if paths := c.resolve(alice.Pubkey); len(paths) != 1 || paths[0][0] != root.Pubkey {
			t.Fatalf("origin %q RESOLVE paths %v", origin, paths)
		}
	}
}

// pushOKs pushes evs over one connection dialled with header and returns the
// OK message of each, in order.
func pushOKs(t *testing.T, url string, header http.Header, evs []*nostr.Event) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	var msgs []string
	for _, ev := range evs {
		frame, _ := json.Marshal([]any{"EVENT", ev})
		if err := ws.Write(ctx, websocket.MessageText, frame); err != nil {
			t.Fatal(err)
		}
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ok []any
		if json.Unmarshal(data, &ok) != nil || len(ok) != 4 || ok[0] != "OK" || ok[1] != ev.ID {
			t.Fatalf("answer %s to %s", data, ev.ID)
		}
		msg, _ := ok[3].(string)
		msgs = append(msgs, msg)
	}
	return msgs
}

// The data directory's owner, whose CLI presents the token it reads from
// running.json, imports without the per-connection push rate limit; any
// other connection, with no token or a wrong one, is still held to it.
func TestOwnerTokenLiftsThePushRateLimit(t *testing.T) {
	t.Parallel()
	limits := server.DefaultLimits()
	limits.EventsPerSecond, limits.EventsBurst = 0.001, 2
	eng, url := startEngine(t, Options{ServerLimits: limits})
	running, found := FindRunning(eng.opts.DataDir)
	if !found || running.Token == "" {
		t.Fatalf("running.json: %+v %v", running, found)
	}
	a := fixture.NewAuthor(1)
	evs := make([]*nostr.Event, 12)
	for i := range evs {
		evs[i] = a.Trust(fixture.P(fixture.NewAuthor(10+i).Pubkey), "1", int64(1700000000+i))
	}
	for _, tc := range []struct {
		name   string
		header http.Header
		evs    []*nostr.Event
	}{
		{"no token", nil, evs[:4]},
		{"wrong token", http.Header{"Authorization": {"Bearer " + strings.Repeat("x", len(running.Token))}}, evs[4:8]},
	} {
		msgs := pushOKs(t, url, tc.header, tc.evs)
		if msgs[0] != "" || msgs[1] != "" || !strings.HasPrefix(msgs[2], "rate-limited:") || !strings.HasPrefix(msgs[3], "rate-limited:") {
			t.Errorf("%s: past a burst of 2 the answers were %q", tc.name, msgs)
		}
	}
	owner := http.Header{"Authorization": {"Bearer " + running.Token}}
	for i, msg := range pushOKs(t, url, owner, evs[8:]) {
		if msg != "" {
			t.Errorf("owner's push %d answered %q", i, msg)
		}
	}
}
