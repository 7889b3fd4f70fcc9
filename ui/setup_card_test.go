package ui

import (
	"net"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// TestSetupCardLeadsUntilTheFirstPass drives a real engine: the card shows
// on a fresh data directory, ticks off the npub and the relays as the user
// gives them, stays through the first pass, and ends on a line that leads to
// Look-up (issue 31: it vanished without a word). The engine's own snapshots
// decide.
func TestSetupCardLeadsUntilTheFirstPass(t *testing.T) {
	eng := servedEngine(t)
	g := newEngineGUI(t, eng, tabStatus)
	g.Start()
	defer g.Stop()
	uiQueue.run()
	card := g.status.setup
	if !card.root.Visible() || !card.npubStep.Visible() || !card.relayStep.Visible() || card.closing.Visible() {
		t.Fatal("setup card not shown with its two steps on a fresh data directory")
	}

	test.Type(card.npub.entry, rootNpub)
	card.npub.submit()
	g.settle()
	waitForUI(t, "the npub step ticked off", func() bool { return !card.npubStep.Visible() && card.rootDone.Visible() })
	if got := card.rootDone.Text; got != "✓ Root: you" {
		t.Errorf("root step says %q", got)
	}
	if !card.root.Visible() || card.closing.Visible() {
		t.Fatal("card hidden, or closing, with no relay yet")
	}

	// relays nobody listens on: the test stays on this machine, and the
	// first pass ends at once
	card.relays.SetText("ws://" + closedAddr(t) + "\n" + "ws://" + closedAddr(t))
	test.Tap(card.useRelays)
	g.settle()
	waitForUI(t, "the relays ticked off", func() bool { return card.relaysDone.Visible() && !card.relayStep.Visible() })
	if got := card.relaysDone.Text; got != "✓ 2 relays to sync from" {
		t.Errorf("relays step says %q", got)
	}
	waitForUI(t, "the first pass ticked off and the closing line", func() bool { return card.closing.Visible() })
	if got := card.firstPass.Text; got != "✓ First sync done: 1 person in your web of trust, 0 statements" {
		t.Errorf("first pass step says %q", got)
	}
	if !card.root.Visible() {
		t.Fatal("the card went without its closing line")
	}
	tapItem(t, card.closing, "Look someone up")
	if card.root.Visible() || g.tabs.SelectedIndex() != tabLookup || g.win.Canvas().Focused() != g.lookup.subject {
		t.Errorf("after Look someone up: card shown %t, tab %d", card.root.Visible(), g.tabs.SelectedIndex())
	}
	if got := eng.Settings(); len(got.Roots) != 1 || got.Roots[0] != rootHex || len(got.Relays) != 2 {
		t.Fatalf("engine has roots %v, relays %v", got.Roots, got.Relays)
	}
}

// unset is the snapshot of an engine with nothing set up.
func unset() status.Snapshot { return status.Snapshot{State: status.StateIdle} }

func TestSetupCardOffersTheSuggestedRelaysInOneClick(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	g.render(unset())
	test.Tap(g.status.setup.useRelays)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) {
		s.Relays = []string{"wss://gone.example", "wss://nos.lol", "wss://nostr-01.yakihonne.com", "wss://relay.damus.io"}
	})
}

func TestSetupCardRefusesABadRelayLineWithNothingAdded(t *testing.T) {
	g, eng := newTestGUI(t, tabStatus)
	g.render(unset())
	card := g.status.setup
	card.relays.SetText("wss://nos.lol\nhttp://not-a-relay")
	test.Tap(card.useRelays)
	g.settle()
	if card.relaysErr.text() == "" {
		t.Fatal("bad relay line accepted")
	}
	assertSettings(t, eng, nil)
}

// An app that starts set up shows no card, not even its closing line.
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
