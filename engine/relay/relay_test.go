package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

const author = "aa00000000000000000000000000000000000000000000000000000000000001"

// trustEvents makes n unsigned kind-32009 events by author, one per second
// going back from base (ids are unique; the relay does not verify).
func trustEvents(n int, base int64) []*nostr.Event {
	evs := make([]*nostr.Event, n)
	for i := range evs {
		evs[i] = &nostr.Event{
			ID: fmt.Sprintf("%064x", i+1), PubKey: author, Kind: 32009,
			CreatedAt: nostr.Timestamp(base - int64(i)), Tags: nostr.Tags{{"d", fmt.Sprint(i)}},
		}
	}
	return evs
}

func dial(t *testing.T, url string, opts Options) *Conn {
	t.Helper()
	c, err := Dial(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func fetchAll(c *Conn) (map[string]bool, FetchStats, error) {
	got := map[string]bool{}
	st, err := c.Fetch(context.Background(), nostr.Filter{Kinds: []int{32009}, Authors: []string{author}},
		func(evs []*nostr.Event) error {
			for _, ev := range evs {
				got[ev.ID] = true
			}
			return nil
		})
	return got, st, err
}

func TestFetchPagesThroughCaps(t *testing.T) {
	cases := []struct {
		name      string
		mode      faultrelay.Mode
		events    int
		wantPages int
	}{
		{"well-behaved", faultrelay.Mode{}, 450, 3},
		{"advertised cap", faultrelay.Mode{CapLimit: 100, AdvertiseCap: true}, 450, 5},
		// Unpublished cap: the first short page (100) is confirmed by a
		// second page, which reveals the cap; then pages of 100 continue.
		{"hidden cap", faultrelay.Mode{CapLimit: 100}, 450, 5},
		{"hidden cap, small batch", faultrelay.Mode{CapLimit: 100}, 30, 2},
		{"garbage frames", faultrelay.Mode{Garbage: true}, 250, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := faultrelay.StartForTest(t, tc.mode, trustEvents(tc.events, 1_700_000_000)...)
			c := dial(t, r.URL, Options{})
			got, st, err := fetchAll(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.events || st.Events != tc.events {
				t.Fatalf("got %d distinct (%d reported), want %d", len(got), st.Events, tc.events)
			}
			if st.Pages != tc.wantPages || r.Reqs() != int64(tc.wantPages) {
				t.Fatalf("pages %d, relay saw %d REQs, want %d", st.Pages, r.Reqs(), tc.wantPages)
			}
			if tc.mode.Garbage && c.Counts().Garbage() != r.EventsSent() {
				t.Fatalf("garbage frames counted %d, want %d", c.Counts().Garbage(), r.EventsSent())
			}
		})
	}
}

func TestFetchFailures(t *testing.T) {
	t.Run("saturated", func(t *testing.T) {
		r := faultrelay.StartForTest(t, faultrelay.Mode{}, trustEvents(PageLimit*maxPages+1, 1_700_000_000)...)
		_, st, err := fetchAll(dial(t, r.URL, Options{}))
		if !errors.Is(err, ErrSaturated) || st.Pages != maxPages {
			t.Fatalf("err %v after %d pages, want saturated after %d", err, st.Pages, maxPages)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		evs := trustEvents(300, 1_700_000_000)
		for _, ev := range evs {
			ev.CreatedAt = 1_700_000_000 // no progress possible with until
		}
		r := faultrelay.StartForTest(t, faultrelay.Mode{}, evs...)
		_, _, err := fetchAll(dial(t, r.URL, Options{}))
		if !errors.Is(err, errStalled) || ConnectionError(err) {
			t.Fatalf("err %v, want page stalled (not a connection error)", err)
		}
	})
	t.Run("unresponsive", func(t *testing.T) {
		r := faultrelay.StartForTest(t, faultrelay.Mode{Stall: true}, trustEvents(10, 1_700_000_000)...)
		_, _, err := fetchAll(dial(t, r.URL, Options{pageTimeout: 200 * time.Millisecond}))
		if !errors.Is(err, ErrTimeout) || !ConnectionError(err) {
			t.Fatalf("err %v, want timeout counted as connection failure", err)
		}
	})
	t.Run("dropped mid-page", func(t *testing.T) {
		r := faultrelay.StartForTest(t, faultrelay.Mode{DropAfter: 50}, trustEvents(300, 1_700_000_000)...)
		c := dial(t, r.URL, Options{})
		_, _, err := fetchAll(c)
		if !ConnectionError(err) || !c.dropped() {
			t.Fatalf("err %v dropped=%v, want a dropped connection", err, c.dropped())
		}
	})
}

func TestAuthRequired(t *testing.T) {
	evs := trustEvents(5, 1_700_000_000)
	// strfry writes every CLOSED reason after "ERROR: "; the machine-readable
	// prefix is read after it, and the REQ is sent again once authenticated
	for name, prefix := range map[string]string{"with key": "", "with key, strfry's ERROR: before the reason": "ERROR: "} {
		t.Run(name, func(t *testing.T) {
			r := faultrelay.StartForTest(t, faultrelay.Mode{AuthRequired: true, ErrorPrefix: prefix}, evs...)
			sk := nostr.GeneratePrivateKey()
			pk, _ := nostr.GetPublicKey(sk)
			got, _, err := fetchAll(dial(t, r.URL, Options{authKey: sk}))
			if err != nil || len(got) != len(evs) {
				t.Fatalf("err %v, got %d events, want %d", err, len(got), len(evs))
			}
			if !r.Authenticated(pk) {
				t.Fatal("relay did not see a valid NIP-42 AUTH")
			}
		})
	}
	t.Run("without key", func(t *testing.T) {
		r := faultrelay.StartForTest(t, faultrelay.Mode{AuthRequired: true}, evs...)
		_, _, err := fetchAll(dial(t, r.URL, Options{}))
		var closed *closedError
		if !errors.As(err, &closed) {
			t.Fatalf("err %v, want CLOSED auth-required", err)
		}
	})
}

// TestHealthTransitions drives every health transition with a manual clock
// against a real relay: connect failures with growing backoff, hourly,
// dead with a daily retry, recovery after a stable useful connection,
// accept-then-drop not resetting backoff, and a stable drop reconnecting at
// once.
func TestHealthTransitions(t *testing.T) {
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	r := faultrelay.StartForTest(t, faultrelay.Mode{}, trustEvents(3, 1_700_000_000)...)
	var savedMu sync.Mutex
	var saved health.Health
	link := NewLink(health.New(r.URL), Options{dialTimeout: time.Second}, clock,
		func(h health.Health) {
			savedMu.Lock()
			saved = h
			savedMu.Unlock()
		})
	ctx := context.Background()
	// retryIn < 0: a retry is due now.
	wantState := func(state string, failures int, retryIn time.Duration) {
		t.Helper()
		h := link.Health()
		retryOK := h.NextRetryAt == clock.Now().Add(retryIn).Unix() || (retryIn < 0 && h.Due(clock.Now()))
		if h.State != state || h.ConsecutiveFailures != failures || !retryOK {
			t.Fatalf("health %s/%d retry %+ds, want %s/%d retry +%v", h.State, h.ConsecutiveFailures,
				h.NextRetryAt-clock.Now().Unix(), state, failures, retryIn)
		}
	}
	useful := func(c *Conn) {
		t.Helper()
		if _, err := c.Page(ctx, nostr.Filter{Kinds: []int{32009}}); err != nil {
			t.Fatal(err)
		}
	}

	// Accept-then-drop: each connection succeeds at the socket level but
	// dies at once; the backoff doubles instead of resetting.
	r.SetMode(faultrelay.Mode{DropAfterAccept: true})
	for i, want := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second} {
		c, err := link.connect(ctx)
		if err == nil {
			<-c.done()
			link.release(c, nil)
		}
		wantState(status.HealthBackoff, i+1, want)
		clock.Advance(want)
	}

	// A connection that is useful but dropped before StableAfter: still a failure.
	r.SetMode(faultrelay.Mode{})
	c, err := link.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	useful(c)
	clock.Advance(5 * time.Second)
	r.DropAll()
	<-c.done()
	link.release(c, nil)
	wantState(status.HealthBackoff, 4, 40*time.Second)

	// Stable and useful: recovers while still connected.
	c, err = link.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	useful(c)
	clock.Advance(health.StableAfter)
	testutil.Eventually(t, "recovery", func() bool { return link.Health().ConsecutiveFailures == 0 })
	wantState(status.HealthHealthy, 0, -1)
	// A stable connection that drops reconnects at once.
	r.DropAll()
	<-c.done()
	link.release(c, nil)
	wantState(status.HealthHealthy, 0, 0)

	// Relay gone: backoff doubles to the 1 h cap, then hourly, then dead
	// after 24 h of continuous failure with a daily retry.
	r.Close()
	start := clock.Now()
	for i := 1; ; i++ {
		if _, err := link.connect(ctx); err == nil {
			t.Fatal("connected to a closed relay")
		}
		h := link.Health()
		elapsed := clock.Now().Sub(start)
		switch {
		case elapsed >= health.DeadAfter:
			wantState(status.HealthDead, i, health.DeadRetry)
		case i > 11: // 5 s << 10 passes the 1 h cap
			wantState(status.HealthHourly, i, time.Hour)
		case health.BackoffBase<<(i-1) >= health.BackoffCap:
			wantState(status.HealthHourly, i, time.Hour)
		default:
			wantState(status.HealthBackoff, i, health.BackoffBase<<(i-1))
		}
		if h.State == status.HealthDead {
			break
		}
		clock.Advance(time.Duration(h.NextRetryAt-clock.Now().Unix()) * time.Second)
	}
	savedMu.Lock()
	defer savedMu.Unlock()
	if saved.State != status.HealthDead {
		t.Fatal("health changes were not reported for persistence")
	}
}

// A connection attempt that we abandon (its context ends: a pass stopped, the
// strategy changed) is not the relay's failure: no backoff, so the next
// attempt may go at once. One that times out by itself is.
func TestAbandonedConnectIsNotAFailure(t *testing.T) {
	// a peer that accepts TCP and never answers the WebSocket upgrade
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	link := NewLink(health.New("ws://"+l.Addr().String()), Options{dialTimeout: 300 * time.Millisecond}, clock, nil)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := link.connect(ctx); err == nil {
		t.Fatal("connected to a peer that never answers")
	}
	if h := link.Health(); h.State != status.HealthHealthy || h.ConsecutiveFailures != 0 || !h.Due(clock.Now()) {
		t.Fatalf("abandoned attempt left %+v", h)
	}

	if _, err := link.connect(context.Background()); err == nil {
		t.Fatal("connected to a peer that never answers")
	}
	if h := link.Health(); h.State != status.HealthBackoff || h.ConsecutiveFailures != 1 || h.Due(clock.Now()) {
		t.Fatalf("timed-out attempt left %+v", h)
	}
}

// The relay's NIP-11 limits are read at each connection and kept with its
// health: a connection on which the document cannot be read keeps to the
// limits last read.
func TestLimitsLastReadStand(t *testing.T) {
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxSubscriptions: 3, AdvertiseSubscriptions: true})
	var saved health.Health
	link := NewLink(health.New(r.URL), Options{}, clock.Wall{}, func(h health.Health) { saved = h })
	ctx := context.Background()
	c, err := link.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, known := c.allowance(); n != 3 || !known || c.ReqsInFlight(4) != 3 || saved.MaxSubscriptions != 3 {
		t.Fatalf("allowance %d (known %v), in flight %d, saved %d: want the published 3", n, known, c.ReqsInFlight(4), saved.MaxSubscriptions)
	}
	link.release(c, nil)

	r.SetMode(faultrelay.Mode{MaxSubscriptions: 3, NoInfo: true})
	later := NewLink(saved, Options{}, clock.Wall{}, func(health.Health) {}) // as from the store
	c, err = later.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer later.release(c, nil)
	if n, known := c.allowance(); n != 3 || !known {
		t.Fatalf("without the document: allowance %d (known %v), want the 3 last read", n, known)
	}
}
