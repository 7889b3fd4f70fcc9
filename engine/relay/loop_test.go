package relay

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// Links.Use decides whose a failure is, for both profiles: a failed batch
// (the relay answered), a connection failure met after we stopped and a
// failure on our side (Local) are not the relay's; a connection failure
// while we still wanted the relay is. The health is saved after each use.
func TestUseDecidesWhoseFailureItIs(t *testing.T) {
	r := faultrelay.StartForTest(t, faultrelay.Mode{})
	st := &healthStore{saved: map[profileURL]health.Health{}}
	var optsRead []string
	links := NewLinks(st, health.ProfileRepository, func(url string) Options {
		optsRead = append(optsRead, url)
		return Options{}
	}, faultrelay.NewClock(time.Unix(1_700_000_000, 0)), slog.Default())
	l := links.Get(r.URL)
	lost := errors.New("connection lost")

	// use serves one connection that ends with failure, after we stopped
	// (its context cancelled while served) when stop is set
	use := func(failure error, stop bool) (health.Health, int) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		connected, err := links.Use(ctx, l, func(context.Context, *Conn) error {
			if !l.connected() {
				t.Error("link not connected while served")
			}
			if stop {
				cancel()
			}
			return failure
		})
		if !connected || !errors.Is(err, failure) {
			t.Fatalf("Use = %v, %v; want connected and serve's failure %v", connected, err, failure)
		}
		if l.connected() {
			t.Error("link still connected after Use")
		}
		return st.get(health.ProfileRepository, r.URL)
	}

	h, saves := use(&closedError{reason: "blocked: no"}, false)
	if saves == 0 || h.ConsecutiveFailures != 0 || h.State != status.HealthHealthy {
		t.Fatalf("after a failed batch: saved %+v (%d saves), want healthy", h, saves)
	}
	if h, _ = use(lost, true); h.ConsecutiveFailures != 0 {
		t.Fatalf("after a failure met once we stopped: %+v, want no failure", h)
	}
	if h, _ = use(lost, false); h.ConsecutiveFailures != 1 || h.State != status.HealthBackoff {
		t.Fatalf("after a connection failure: %+v, want one failure and a backoff", h)
	}
	// our side's failure (the store) is not the relay's, even as a connection error would be
	if h, _ = use(Local(lost), false); h.ConsecutiveFailures != 1 {
		t.Fatalf("after a failure on our side: %+v, want the one earlier failure only", h)
	}
	// the options are read at each connection: a changed setting reaches the next
	if !slices.Equal(optsRead, []string{r.URL, r.URL, r.URL, r.URL}) {
		t.Fatalf("options read for %v, want once per connection", optsRead)
	}
}

// Links.Keep reports its states and, after a failed batch, rests as the
// profile says; a rest that ends stops the loop.
func TestKeepRestsAfterAFailedBatch(t *testing.T) {
	r := faultrelay.StartForTest(t, faultrelay.Mode{})
	st := &healthStore{saved: map[profileURL]health.Health{}}
	links := NewLinks(st, health.ProfileTrust, func(string) Options { return Options{} }, faultrelay.NewClock(time.Unix(1_700_000_000, 0)), slog.Default())
	var mu sync.Mutex
	var states []string
	var rested []error
	batch := &closedError{reason: "error: shutting down"}
	links.keep(context.Background(), links.Get(r.URL), loop{
		Serve: func(context.Context, *Conn) error { return batch },
		onState: func(s string) {
			mu.Lock()
			states = append(states, s)
			mu.Unlock()
		},
		rest: func(_ context.Context, failure error) bool {
			rested = append(rested, failure)
			return len(rested) < 2
		},
	})
	want := []string{status.StateConnecting, status.StateReconnecting, status.StateConnecting, status.StateReconnecting, status.StateStopped}
	if !slices.Equal(states, want) || len(rested) != 2 || rested[0] != batch {
		t.Fatalf("states %v, rests %v; want %v and two rests for the failed batch", states, rested, want)
	}
	testutil.EventuallyWithin(t, 5*time.Second, "every connection closed", func() bool { return r.Conns() == 0 })
}
