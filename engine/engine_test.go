package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/relay"
	"dtp-personal/internal/testutil"
)

// startEngine runs a real engine on a temporary data directory, listening on
// a loopback port, and returns it with its ws:// URL.
func startEngine(t testing.TB, opts Options) (*Engine, string) {
	t.Helper()
	eng, url, _ := runEngine(t, opts)
	return eng, url
}

// Test engines recompute the frontier and close repository sync's window
// after these instead of production's 1 s and 5 s, so no test waits them out.
const (
	testFrontierDebounce = 20 * time.Millisecond
	testRepoWindow       = 100 * time.Millisecond
)

// runEngine is startEngine with a stop function for tests that restart.
func runEngine(t testing.TB, opts Options) (*Engine, string, func()) {
	t.Helper()
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	if opts.FrontierDebounce == 0 {
		opts.FrontierDebounce = testFrontierDebounce
	}
	if opts.RepoWindow == 0 {
		opts.RepoWindow = testRepoWindow
	}
	opts.Listen = "127.0.0.1:0"
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- eng.Serve(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
			if err := eng.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	testutil.Eventually(t, "engine listening", func() bool { return eng.ListenAddr() != "" })
	return eng, "ws://" + eng.ListenAddr(), stop
}

// dialRelay opens the sync's own relay client to the engine, closed when the
// test ends.
func dialRelay(t testing.TB, ctx context.Context, url string) *relay.Conn {
	t.Helper()
	c, err := relay.Dial(ctx, url, relay.Options{})
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(c.Close)
	return c
}

// rawClient speaks NIP-01 frames directly, to see exact OK messages.
type rawClient struct {
	t  testing.TB
	ws *websocket.Conn
}

func dialRaw(t testing.TB, url string) *rawClient {
	t.Helper()
	ws, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(16 << 20)
	t.Cleanup(func() { ws.CloseNow() })
	return &rawClient{t: t, ws: ws}
}

func (c *rawClient) write(frame string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, []byte(frame))
}

func (c *rawClient) read() []json.RawMessage {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := c.ws.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var msg []json.RawMessage
	if err := json.Unmarshal(data, &msg); err != nil {
		c.t.Fatalf("server sent a frame that is not a JSON array: %s", data)
	}
	return msg
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// push sends one event and returns its OK.
func (c *rawClient) push(ev *nostr.Event) (bool, string) {
	c.t.Helper()
	b, _ := json.Marshal([]any{"EVENT", ev})
	if err := c.write(string(b)); err != nil {
		c.t.Fatal(err)
	}
	for {
		msg := c.read()
		if str(msg[0]) != "OK" {
			continue
		}
		var ok bool
		_ = json.Unmarshal(msg[2], &ok)
		return ok, str(msg[3])
	}
}

const t0 = 1700000000

func TestPushValidationRulesOverRealSocket(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)

	for name, ev := range map[string]*nostr.Event{
		"32009": alice.Trust(fixture.P(bob.Pubkey), "1", t0),
		"32014": alice.Rating(fixture.XUser("42"), "75", t0),
		"10011": bob.Claims("bob", "42", t0),
	} {
		if ok, msg := c.push(ev); !ok || msg != "" {
			t.Errorf("valid %s refused: %q", name, msg)
		}
	}

	resign := func(ev *nostr.Event, edit func(*nostr.Event)) *nostr.Event {
		edit(ev)
		return alice.Sign(ev)
	}
	badSig := alice.Trust(fixture.P(bob.Pubkey), "1", t0+1)
	badSig.Sig = strings.Repeat("0", 128)
	badID := alice.Trust(fixture.P(bob.Pubkey), "1", t0+2)
	badID.Content = "changed after signing"
	cases := []struct {
		name string
		ev   *nostr.Event
		want string
	}{
		{"bad signature", badSig, "invalid: "},
		{"bad id", badID, "invalid: "},
		{"wrong d", resign(alice.Trust(fixture.P(bob.Pubkey), "1", t0+3), func(e *nostr.Event) {
			e.Tags[0][1] = strings.Repeat("ab", 32)
		}), "invalid: d tag does not match material"},
		{"two subjects", resign(alice.Trust(fixture.P(bob.Pubkey), "1", t0+4), func(e *nostr.Event) {
			e.Tags = append(e.Tags, nostr.Tag{"p", alice.Pubkey})
		}), "invalid: "},
		{"missing v", resign(alice.Trust(fixture.P(bob.Pubkey), "1", t0+5), func(e *nostr.Event) {
			e.Tags = slices.DeleteFunc(e.Tags, func(tag nostr.Tag) bool { return tag[0] == "v" })
		}), "invalid: "},
		{"foreign scope", alice.Trust(fixture.P(bob.Pubkey), "1", t0+6, fixture.Scopes("example.org")), "blocked: "},
		{"unknown kind", alice.Sign(&nostr.Event{Kind: 1, CreatedAt: t0, Content: "hello"}), "blocked: kind 1 is not kept by this server"},
		{"oversize", alice.Trust(fixture.P(bob.Pubkey), "1", t0+7, fixture.Content(strings.Repeat("x", 600_000))), "invalid: message of "},
	}
	seen := map[string]string{}
	for _, tc := range cases {
		ok, msg := c.push(tc.ev)
		if ok || !strings.HasPrefix(msg, tc.want) {
			t.Errorf("%s: got ok=%v %q, want refusal starting %q", tc.name, ok, msg, tc.want)
		}
		if len(msg) <= len("invalid: ") {
			t.Errorf("%s: refusal %q names no rule", tc.name, msg)
		}
		if other, dup := seen[msg]; dup {
			t.Errorf("%s and %s share the refusal %q: each rule needs its own message", tc.name, other, msg)
		}
		seen[msg] = tc.name
	}
}

func TestSlotReductionOverRealSocket(t *testing.T) {
	t.Parallel()
	eng, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	newer := alice.Trust(fixture.P(bob.Pubkey), "1", t0+10)
	older := alice.Trust(fixture.P(bob.Pubkey), "-1", t0)
	newest := alice.Trust(fixture.P(bob.Pubkey), "0", t0+20)

	if ok, msg := c.push(newer); !ok || msg != "" {
		t.Fatalf("first statement: %v %q", ok, msg)
	}
	if ok, msg := c.push(older); !ok || msg != "duplicate: older than current slot winner" {
		t.Fatalf("older statement: %v %q", ok, msg)
	}
	if ok, msg := c.push(newer); !ok || !strings.HasPrefix(msg, "duplicate:") {
		t.Fatalf("same event again: %v %q", ok, msg)
	}
	if ok, msg := c.push(newest); !ok || msg != "" {
		t.Fatalf("newer statement: %v %q", ok, msg)
	}
	got, err := eng.store.Query(context.Background(), nostr.Filter{Authors: []string{alice.Pubkey}}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != newest.ID {
		t.Fatalf("store holds %d events for the slot, want only the newest winner", len(got))
	}
}

// TestREQFiltersOverRealSocket checks, with go-nostr's own Relay client, that
// each filter field returns exactly the matching stored events, newest first.
func TestREQFiltersOverRealSocket(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	authors := []fixture.Author{fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)}
	var all []*nostr.Event
	for i, a := range authors {
		for j, b := range authors {
			if i == j {
				continue
			}
			all = append(all,
				a.Trust(fixture.P(b.Pubkey), "1", int64(t0+10*i+j)),
				a.Trust(fixture.XUser(fmt.Sprint(100+j)), "-1", int64(t0+100+10*i+j), fixture.Scopes("x.com")),
				a.Rating(fixture.XUser(fmt.Sprint(100+j)), "50", int64(t0+200+10*i+j), fixture.Context("identity")),
			)
		}
		all = append(all, a.Claims("user"+fmt.Sprint(i), fmt.Sprint(100+i), int64(t0+300+i)))
	}
	for _, ev := range all {
		if ok, msg := c.push(ev); !ok || msg != "" {
			t.Fatalf("fixture refused: %q", msg)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := dialRelay(t, ctx, url)

	dTag := all[4].Tags.GetFirst([]string{"d"})
	filters := map[string]nostr.Filter{
		"authors": {Authors: []string{authors[1].Pubkey}},
		"kinds":   {Kinds: []int{32014}},
		"#d":      {Tags: nostr.TagMap{"d": {(*dTag)[1]}}},
		"#i":      {Tags: nostr.TagMap{"i": {"user:id:101"}}},
		"#k":      {Kinds: []int{32009}, Tags: nostr.TagMap{"k": {"user:id"}}},
		"#s":      {Tags: nostr.TagMap{"s": {"x.com"}}},
		"#p":      {Tags: nostr.TagMap{"p": {authors[0].Pubkey, authors[2].Pubkey}}},
		"since":   {Since: ptr(nostr.Timestamp(t0 + 150))},
		"until":   {Until: ptr(nostr.Timestamp(t0 + 150))},
		"limit":   {Kinds: []int{32009}, Limit: 3},
		"combined": {Kinds: []int{32009}, Authors: []string{authors[2].Pubkey},
			Tags: nostr.TagMap{"s": {"x.com"}}, Since: ptr(nostr.Timestamp(t0 + 100))},
	}
	for name, f := range filters {
		want := testutil.Matching(all, f, 0)
		if len(want) == 0 {
			t.Fatalf("%s: fixture has no matching event; the case proves nothing", name)
		}
		// the sync's relay client checks the set; the raw client sees the
		// order on the wire
		got, err := client.Page(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if sortedIDs(got) != sortedIDs(want) {
			t.Errorf("%s: relay client got %d events %s\nwant %d events %s", name, len(got), ids(got), len(want), ids(want))
		}
		if wire := c.req(f); ids(wire) != ids(want) {
			t.Errorf("%s: wire order %s\nwant newest first %s", name, ids(wire), ids(want))
		}
	}
}

// req sends a REQ and returns the stored events in the order they arrived,
// up to EOSE.
func (c *rawClient) req(f nostr.Filter) []*nostr.Event {
	c.t.Helper()
	b, _ := json.Marshal([]any{"REQ", "q", f})
	if err := c.write(string(b)); err != nil {
		c.t.Fatal(err)
	}
	var evs []*nostr.Event
	for {
		msg := c.read()
		switch str(msg[0]) {
		case "EOSE":
			_ = c.write(`["CLOSE","q"]`)
			return evs
		case "EVENT":
			var ev nostr.Event
			if err := json.Unmarshal(msg[2], &ev); err != nil {
				c.t.Fatal(err)
			}
			evs = append(evs, &ev)
		case "CLOSED":
			c.t.Fatalf("REQ closed: %s", msg[2])
		}
	}
}

func sortedIDs(evs []*nostr.Event) string {
	s := make([]string, len(evs))
	for i, ev := range evs {
		s[i] = ev.ID[:8]
	}
	slices.Sort(s)
	return strings.Join(s, " ")
}

func ptr[T any](v T) *T { return &v }

func ids(evs []*nostr.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(ev.ID[:8])
		b.WriteByte(' ')
	}
	return b.String()
}

func TestLiveSubscriptionReceivesLaterPush(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	live, eose := make(chan *nostr.Event, 4), make(chan struct{}, 1)
	_, err := dialRelay(t, ctx, url).Subscribe(nostr.Filters{{Kinds: []int{32009}, Authors: []string{alice.Pubkey}}},
		relay.Handler{Event: func(ev *nostr.Event) { live <- ev }, EOSE: func() { eose <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-eose:
	case <-ctx.Done():
		t.Fatal("no EOSE")
	}
	other := bob.Trust(fixture.P(alice.Pubkey), "1", t0) // does not match: other author
	match := alice.Trust(fixture.P(bob.Pubkey), "1", t0)
	c := dialRaw(t, url)
	c.push(other)
	c.push(match)
	select {
	case ev := <-live:
		if ev.ID != match.ID {
			t.Fatalf("live subscription got %s, want the matching event %s", ev.ID, match.ID)
		}
	case <-ctx.Done():
		t.Fatal("live subscription did not receive the pushed event")
	}
}
