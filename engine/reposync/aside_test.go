package reposync

import (
	"testing"
	"time"

	"dtp-personal/engine/internal/faultrelay"
)

func TestAsideWakesByDependencyAndStaysBounded(t *testing.T) {
	t.Parallel()
	clock := faultrelay.NewClock(time.Unix(1000, 0))
	a := newAside(clock, 2, time.Minute)
	e1 := stranger.Tagging(1111, "E", 1, owner.Pubkey)
	e2 := stranger.Tagging(1111, "E", 2, maint.Pubkey)
	e3 := stranger.Tagging(1111, "E", 3, maint2.Pubkey)
	a.Keep(e1, "sync:b", []string{"x", "y"})
	a.Keep(e2, "sync:b", []string{"y"})
	if evs, _ := a.Wake([]string{"y"}); len(evs) != 2 {
		t.Fatalf("woke %d events for y, want 2", len(evs))
	}
	if evs, _ := a.Wake([]string{"x"}); len(evs) != 0 {
		t.Fatalf("an event woke twice")
	}
	a.Keep(e1, "s", []string{"k1"})
	a.Keep(e2, "s", []string{"k2"})
	a.Keep(e3, "s", []string{"k3"}) // over the bound: the oldest goes
	if a.Len() != 2 {
		t.Fatalf("kept %d, bound 2", a.Len())
	}
	if evs, _ := a.Wake([]string{"k1"}); len(evs) != 0 {
		t.Fatal("the oldest was not dropped at the bound")
	}
	clock.Advance(2 * time.Minute)
	if evs, _ := a.Wake([]string{"k2", "k3"}); len(evs) != 0 {
		t.Fatalf("woke %d expired events", len(evs))
	}
	if a.Len() != 0 || len(a.byKey) != 0 {
		t.Fatalf("left %d events, %d keys after expiry", a.Len(), len(a.byKey))
	}
}
