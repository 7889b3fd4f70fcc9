package ui

import (
	"dtp-personal/engine/settings"
	"net"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// TestSetupCardLeadsUntilRootAndRelaysExist drives a real engine: the card
// shows on a fresh data directory and goes once the user gave an npub and
// relays; the engine's own snapshots decide.
func TestSetupCardLeadsUntilRootAndRelaysExist(t *testing.T) {
	eng := servedEngine(t)
	g := newEngineGUI(t, eng, tabStatus)
	g.Start()
	defer g.Stop()
	uiQueue.run()
	card := g.status.setup
	if !card.root.Visible() || !card.npubStep.Visible() || !card.relayStep.Visible() {
		t.Fatal("setup card not shown with no root and no relay")
	}

	test.Type(card.npub.entry, rootNpub)
	card.npub.submit()
	g.settle()
	waitForUI(t, "the npub step to go", func() bool { return !card.npubStep.Visible() })
	if !card.root.Visible() {
		t.Fatal("card hidden with no relay yet")
	}

	// relays nobody listens on: the test stays on this machine
	card.relays.SetText("ws://" + closedAddr(t) + "\n" + "ws://" + closedAddr(t))
	test.Tap(card.useRelays)
	g.settle()
	waitForUI(t, "the card to go", func() bool { return !card.root.Visible() })
	if got := eng.Settings(); len(got.Roots) != 1 || got.Roots[0] != rootHex || len(got.Relays) != 2 {
		t.Fatalf("engine has roots %v, relays %v", got.Roots, got.Relays)
	}
}

func TestSetupCardOffersTheSuggestedRelaysInOneClick(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	g.render(status.Snapshot{})
	test.Tap(g.status.setup.useRelays)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) {
		s.Relays = []string{"wss://gone.example", "wss://nos.lol", "wss://nostr-01.yakihonne.com", "wss://relay.damus.io"}
	})
}

func TestSetupCardRefusesABadRelayLineWithNothingAdded(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	g.render(status.Snapshot{})
	card := g.status.setup
	card.relays.SetText("wss://nos.lol\nhttp://not-a-relay")
	test.Tap(card.useRelays)
	g.settle()
	if card.relaysErr.text() == "" {
		t.Fatal("bad relay line accepted")
	}
	assertSettings(t, eng, nil)
}

func TestSetupCardHiddenOnAConfiguredEngine(t *testing.T) {
	g, _ := newTestGUI(t, tabStatus)
	if g.status.setup.root.Visible() {
		t.Fatal("setup card shown with roots and relays configured")
	}
}

// waitForUI runs the UI thread's work until ok holds.
func waitForUI(t *testing.T, what string, ok func() bool) {
	t.Helper()
	testutil.EventuallyWithin(t, 10*time.Second, what, func() bool {
		uiQueue.run()
		return ok()
	})
}

// closedAddr is a 127.0.0.1 address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
