package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/internal/testutil"
)

// dialServer opens a WebSocket to a server; the connection and the context
// end with the test or when done is called.
func dialServer(t *testing.T, addr string) (ctx context.Context, ws *websocket.Conn, done func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	ws, _, err := websocket.Dial(ctx, "ws://"+addr, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return ctx, ws, func() { ws.CloseNow(); cancel() }
}

// pushTo sends events to a server over its WebSocket and waits for each OK.
func pushTo(t *testing.T, addr string, evs ...*nostr.Event) {
	t.Helper()
	ctx, ws, done := dialServer(t, addr)
	defer done()
	for _, ev := range evs {
		b, _ := json.Marshal([]any{"EVENT", ev})
		if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msg []any
		if json.Unmarshal(data, &msg) != nil || msg[0] != "OK" || msg[2] != true {
			t.Fatalf("push refused: %s", data)
		}
	}
}

// holds reports whether a server has stored the event with this id.
func holds(t *testing.T, addr, id string) bool {
	t.Helper()
	ctx, ws, done := dialServer(t, addr)
	defer done()
	b, _ := json.Marshal([]any{"REQ", "h", nostr.Filter{IDs: []string{id}}})
	if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	found := false
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msg []json.RawMessage
		_ = json.Unmarshal(data, &msg)
		switch string(msg[0]) {
		case `"EVENT"`:
			found = true
		case `"EOSE"`:
			return found
		}
	}
}

// TestStrategySwitchOnRunningServer runs two headless servers: a remote one
// holding the data and a local one syncing from it. Under the manual
// interval strategy a new remote event stays remote; after `strategy
// frontier-continuous` from the CLI, the running local server follows the
// remote live, without a restart.
func TestStrategySwitchOnRunningServer(t *testing.T) {
	now := time.Now().Unix()
	root, alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	remote := startServer(t, t.TempDir())
	first := root.Trust(fixture.P(alice.Pubkey), "1", now-100)
	pushTo(t, remote.addr, first)

	data := t.TempDir()
	for _, args := range [][]string{
		{"roots", "add", root.Pubkey},
		{"relays", "add", "ws://" + remote.addr},
		{"strategy", "frontier-interval", "--interval", "0"},
	} {
		if out, err := cliRun(t, data, args...); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}
	local := startServer(t, data)
	testutil.EventuallyWithin(t, 10*time.Second, "the start-up pass fetches the root's statement", func() bool { return holds(t, local.addr, first.ID) })

	// a new statement of the root, whose history the start-up pass already
	// read (one of alice's could arrive with the fetch of her history that
	// her joining the frontier starts, which races with this push)
	second := root.Trust(fixture.P(bob.Pubkey), "1", now-50)
	pushTo(t, remote.addr, second)
	time.Sleep(3 * time.Second)
	if holds(t, local.addr, second.ID) {
		t.Fatal("manual interval strategy fetched a new event without being asked")
	}

	if out, err := cliRun(t, data, "strategy", "frontier-continuous"); err != nil {
		t.Fatalf("strategy: %v %s", err, out)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "continuous strategy catches up", func() bool { return holds(t, local.addr, second.ID) })

	third := bob.Trust(fixture.P(root.Pubkey), "1", now) // bob joined the frontier through the root
	pushTo(t, remote.addr, third)
	testutil.EventuallyWithin(t, 5*time.Second, "a live event by a new frontier author", func() bool { return holds(t, local.addr, third.ID) })
}

// TestSyncOnceExitCodes checks `sync --once` exits 0 when complete and 3
// when partial, as scripts rely on.
func TestSyncOnceExitCodes(t *testing.T) {
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	remote := startServer(t, t.TempDir())
	pushTo(t, remote.addr, root.Trust(fixture.P(alice.Pubkey), "1", time.Now().Unix()-10))

	data := t.TempDir()
	cliRun(t, data, "roots", "add", root.Pubkey)
	cliRun(t, data, "relays", "add", "ws://"+remote.addr)
	out, err := cliRun(t, data, "sync", "--once")
	if err != nil || out != "complete\n" {
		t.Fatalf("sync --once: %q %v, want complete and exit 0", out, err)
	}
	// again with nothing new: the pass settled, so this one is made from its
	// window probes alone (engine.SyncSettled), with the same outcome
	if out, err := cliRun(t, data, "sync", "--once"); err != nil || out != "complete\n" {
		t.Fatalf("sync --once again: %q %v, want complete and exit 0", out, err)
	}

	cliRun(t, data, "relays", "add", "ws://"+freeAddr(t)) // nothing listens there
	cmd := exec.Command(binary, "--data", data, "sync", "--once")
	stdout, err := cmd.Output()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Fatalf("sync --once with a dead relay: %v (%s), want exit 3", err, stdout)
	}
	if want := "partial: relay-failed:ws://"; len(stdout) < len(want) || string(stdout[:len(want)]) != want {
		t.Fatalf("printed %q, want it to start with %q", stdout, want)
	}
}
