package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
)

// A GRASP-02 peer syncing from our service opens one subscription per
// filter group, up to about 70, each with the three tag filters of a layer
// (#a/#A/#q or #e/#E/#q): every one is served (EOSE, no CLOSED), and a
// live event reaches the subscription that asked for it. NIP-11 advertises
// the limits in force and lists no GRASP under supported_grasps: we host no
// git data, and clients read that field to find git hosts.
func TestGRASPPeerWithSeventySubscriptionsIsServed(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	if err := eng.Modify(settings.AddRepoService("wss://our.example")); err != nil {
		t.Fatal(err)
	}
	owner := fixture.NewAuthor(81)
	c := dialRaw(t, url)
	var refs []string
	for i := range 70 {
		refs = append(refs, fixture.RepoRef(owner.Pubkey, fmt.Sprintf("repo-%02d", i)))
		ref := refs[i]
		frame, _ := json.Marshal([]any{"REQ", fmt.Sprintf("layer2-%02d", i),
			nostr.Filter{Tags: nostr.TagMap{"a": {ref}}}, nostr.Filter{Tags: nostr.TagMap{"A": {ref}}},
			nostr.Filter{Tags: nostr.TagMap{"q": {ref}}}})
		if err := c.write(string(frame)); err != nil {
			t.Fatal(err)
		}
	}
	for range 70 {
		if msg := c.read(); str(msg[0]) != "EOSE" {
			t.Fatalf("a GRASP peer's subscription answered %s, want EOSE", msg)
		}
	}
	// the last repository's announcement, pushed by its owner, reaches the
	// peer's subscription for it (an announcement names its own repository by
	// no tag: an issue tagging it does)
	ann := owner.Announce("repo-69", []string{"wss://our.example"}, nil, time.Now().Unix()-10)
	issue := owner.Root(1621, "crash", time.Now().Unix()-5, refs[69])
	p := dialRaw(t, url)
	for _, ev := range []*nostr.Event{ann, issue} {
		if ok, msg := p.push(ev); !ok {
			t.Fatalf("push kind %d: %s", ev.Kind, msg)
		}
	}
	if msg := c.read(); str(msg[0]) != "EVENT" || str(msg[1]) != "layer2-69" {
		t.Fatalf("live issue delivered as %s, want EVENT on layer2-69", msg)
	}

	code, body := httpGet(t, "http"+strings.TrimPrefix(url, "ws")+"/", "Accept", "application/nostr+json")
	var info map[string]json.RawMessage
	if code != 200 || json.Unmarshal([]byte(body), &info) != nil {
		t.Fatalf("NIP-11: %d %s", code, body)
	}
	var limits struct {
		MaxSubscriptions int `json:"max_subscriptions"`
		MaxFilters       int `json:"max_filters"`
		MaxMessageLength int `json:"max_message_length"`
	}
	if err := json.Unmarshal(info["limitation"], &limits); err != nil || limits.MaxSubscriptions != 100 ||
		limits.MaxFilters != 100 || limits.MaxMessageLength != 512<<10 {
		t.Errorf("NIP-11 limitation %s, want the defaults 100 subscriptions, 100 filters, 524288 bytes", info["limitation"])
	}
	if _, listed := info["supported_grasps"]; listed {
		t.Errorf("NIP-11 lists supported_grasps %s: clients would take this server for a git host", info["supported_grasps"])
	}
}

// The per-connection limits are the user's settings: lowered while the
// server runs, the next REQ past them is refused with the rule named, and
// NIP-11 says the new figures.
func TestConnectionLimitsAreSettings(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	l := eng.Settings().Limits
	l.MaxSubscriptions, l.MaxFiltersPerReq, l.MaxMessageKiB = 2, 2, 16
	if err := eng.Modify(settings.SetLimits(l)); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, url)
	for i, frame := range []string{
		`["REQ","one",{"kinds":[30617]}]`,
		`["REQ","two",{"kinds":[30617]},{"kinds":[30618]}]`,
	} {
		if err := c.write(frame); err != nil {
			t.Fatal(err)
		}
		if msg := c.read(); str(msg[0]) != "EOSE" {
			t.Fatalf("REQ %d within the limits answered %s", i+1, msg)
		}
	}
	for _, tc := range []struct{ frame, want string }{
		{`["REQ","three",{"kinds":[1617]}]`, "invalid: 2 open subscriptions is the limit per connection"},
		{`["REQ","two",{"kinds":[1]},{"kinds":[2]},{"kinds":[3]}]`, "invalid: 3 filters exceed the limit of 2 per request"},
		{`["REQ","two",{"authors":["` + strings.Repeat("a", 20_000) + `"]}]`, "invalid: message of "},
	} {
		if err := c.write(tc.frame); err != nil {
			t.Fatal(err)
		}
		if msg := c.read(); str(msg[0]) != "CLOSED" || !strings.HasPrefix(str(msg[2]), tc.want) {
			t.Errorf("answered %s, want CLOSED %q", msg, tc.want)
		}
	}
	_, body := httpGet(t, "http"+strings.TrimPrefix(url, "ws")+"/", "Accept", "application/nostr+json")
	if !strings.Contains(body, `"max_subscriptions":2`) || !strings.Contains(body, `"max_filters":2`) ||
		!strings.Contains(body, `"max_message_length":16384`) {
		t.Errorf("NIP-11 does not say the lowered limits: %s", body)
	}
}

// Behind a reverse proxy every client connects from the proxy's address.
// Once the user names the proxy, connections count against the per-address
// cap by the client X-Forwarded-For names (its last hop not a named proxy);
// before, by the proxy's own address, whatever the header says.
func TestTrustedProxyHeaderCountsClientsApart(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	l := eng.Settings().Limits
	l.MaxConnectionsPerAddress = 2
	if err := eng.Modify(settings.SetLimits(l)); err != nil {
		t.Fatal(err)
	}
	dial := func(forwarded string) int {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {forwarded}}})
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return resp.StatusCode
		}
		t.Cleanup(func() { ws.CloseNow() })
		return http.StatusSwitchingProtocols
	}
	// not named: the header is not believed, and all three are 127.0.0.1
	if a, b, c := dial("203.0.113.1"), dial("203.0.113.2"), dial("203.0.113.3"); a != 101 || b != 101 || c != 503 {
		t.Fatalf("without a named proxy: %d %d %d, want 101 101 503 (two per address)", a, b, c)
	}
	if err := eng.Modify(settings.TrustProxy("127.0.0.1")); err != nil {
		t.Fatal(err)
	}
	// named: each client counts apart; a client's own header entry before
	// the proxy's is not believed
	for _, client := range []string{"198.51.100.1", "198.51.100.2", "10.9.9.9, 198.51.100.3"} {
		if got := dial(client); got != 101 {
			t.Fatalf("client %s behind the named proxy refused (%d)", client, got)
		}
	}
	if got := dial("198.51.100.1"); got != 101 {
		t.Fatalf("second connection of 198.51.100.1 refused (%d)", got)
	}
	if got := dial("198.51.100.1"); got != 503 {
		t.Fatalf("third connection of 198.51.100.1: %d, want 503 at the per-address cap", got)
	}
}
