package relay

import (
	"context"
	"time"

	"dtp-personal/engine/status"
)

// Serve is what a sync profile does while connected to a relay. It returns
// when the connection drops (its Err), its work failed or is done (nil), or
// ctx ended.
type Serve func(ctx context.Context, conn *Conn) error

// Loop is a sync profile's part in Keep.
type Loop struct {
	Serve Serve
	// OnState is told the relay's connection state: status.StateConnecting,
	// StateReconnecting (a connection ended), StateStopped (Keep returns).
	OnState func(state string)
	// Rest, when set, runs after a connection whose work failed while the
	// relay answered (not the relay's failure, so its health has no backoff
	// for it): it waits before the next attempt; false ends Keep.
	Rest func(ctx context.Context, failure error) bool
}

// Use makes one connection to l's relay (NIP-42 is answered on it), serves
// it, and releases it: the failure counts against the relay only when the
// connection itself failed while ctx was alive (an abandoned dial or a
// cancelled context says nothing of the relay), and the health is saved. It
// returns the dial's error, or serve's; connected says which.
func (ls *Links) Use(ctx context.Context, l *Link, serve Serve) (connected bool, err error) {
	conn, err := l.Connect(ctx)
	if err != nil {
		return false, err
	}
	failure := serve(ctx, conn)
	relayFailure := failure
	if !ConnectionError(failure) || ctx.Err() != nil {
		relayFailure = nil // the relay answered; a batch failed, or we stopped
	}
	l.Release(conn, relayFailure)
	ls.Save(l)
	return true, failure
}

// Keep keeps l's relay connected as its health allows until ctx ends: it
// waits out the backoff, connects and serves (Use), and connects again.
func (ls *Links) Keep(ctx context.Context, l *Link, lp Loop) {
	defer lp.OnState(status.StateStopped)
	for ctx.Err() == nil {
		if !ls.waitDue(ctx, l) {
			return
		}
		lp.OnState(status.StateConnecting)
		connected, failure := ls.Use(ctx, l, lp.Serve)
		if !connected {
			continue // the health's backoff paces the next attempt
		}
		if ctx.Err() != nil {
			return
		}
		if failure != nil {
			ls.log.Warn("relay connection failed", "profile", ls.profile, "relay", l.URL(), "err", failure)
		}
		lp.OnState(status.StateReconnecting)
		if failure != nil && !ConnectionError(failure) && lp.Rest != nil && !lp.Rest(ctx, failure) {
			return
		}
	}
}

// waitDue waits until l's health allows an attempt; false when ctx ended.
func (ls *Links) waitDue(ctx context.Context, l *Link) bool {
	h := l.Health()
	now := ls.clock.Now()
	if h.Due(now) {
		return true
	}
	select {
	case <-ctx.Done():
		return false
	case <-ls.clock.After(time.Unix(h.NextRetryAt, 0).Sub(now)):
		return true
	}
}
