package relay

import (
	"context"
	"errors"
	"time"

	"dtp-personal/engine/status"
)

// localError is a failure on our side met while serving a connection (the
// store, the ingest pipeline): not the relay's, so its health is not blamed
// for it, and Keep rests (Loop.Rest) before it connects again, as after a
// failed batch.
type localError struct{ err error }

func (e *localError) Error() string { return e.err.Error() }
func (e *localError) Unwrap() error { return e.err }

// Local marks err as a failure on our side; nil stays nil.
func Local(err error) error {
	if err == nil {
		return nil
	}
	return &localError{err: err}
}

// relaysFault reports whether failure is the relay's: its connection failed
// (ConnectionError), not our side.
func relaysFault(failure error) bool {
	var local *localError
	return ConnectionError(failure) && !errors.As(failure, &local)
}

// Serve is what a sync profile does while connected to a relay. It returns
// when the connection drops (its Err), its work failed or is done (nil), or
// ctx ended.
type Serve func(ctx context.Context, conn *Conn) error

// loop is a sync profile's part in Keep.
type loop struct {
	Serve Serve
	// onState is told the relay's connection state: status.StateConnecting,
	// StateReconnecting (a connection ended), StateStopped (Keep returns).
	onState func(state string)
	// rest, when set, runs after a connection whose work failed while the
	// relay answered, or failed on our side (a localError): not the relay's
	// failure, so its health has no backoff for it. It waits before the
	// next attempt; false ends Keep.
	rest func(ctx context.Context, failure error) bool
}

// Use makes one connection to l's relay (NIP-42 is answered on it), serves
// it, and releases it: the failure counts against the relay only when the
// connection itself failed while ctx was alive (an abandoned dial, a
// cancelled context or a localError says nothing of the relay), and the
// health is saved. It
// returns the dial's error, or serve's; connected says which.
func (ls *Links) Use(ctx context.Context, l *Link, serve Serve) (connected bool, err error) {
	conn, err := l.connect(ctx)
	if err != nil {
		return false, err
	}
	failure := serve(ctx, conn)
	relayFailure := failure
	if !relaysFault(failure) || ctx.Err() != nil {
		relayFailure = nil // the relay answered; a batch failed, our side failed, or we stopped
	}
	l.release(conn, relayFailure)
	ls.Save(l)
	return true, failure
}

// keep keeps l's relay connected as its health allows until ctx ends: it
// waits out the backoff, connects and serves (Use), and connects again.
func (ls *Links) keep(ctx context.Context, l *Link, lp loop) {
	defer lp.onState(status.StateStopped)
	for ctx.Err() == nil {
		if !ls.waitDue(ctx, l) {
			return
		}
		lp.onState(status.StateConnecting)
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
		lp.onState(status.StateReconnecting)
		if failure != nil && !relaysFault(failure) && lp.rest != nil && !lp.rest(ctx, failure) {
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
