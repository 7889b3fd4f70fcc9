package trustsync

import (
	"context"
	"errors"
	"time"

	"dtp-personal/engine/relay"
)

// A page that timed out is a slow relay, not a dead one: the batch is asked
// again (three attempts, 0.5 s then 1 s apart, ±20%, the extension's retry
// policy) before the timeout counts against the relay.
var pageRetry = relay.Backoff{Initial: 500 * time.Millisecond, Max: time.Second, Jitter: 0.2}

const pageAttempts = 3

// retryTimeouts runs fetch until it ends other than by a page timeout, at
// most pageAttempts times. Events of a timed-out attempt are kept: the pass
// drops them as already seen when they come again.
func (p *pass) retryTimeouts(ctx context.Context, fetch func() error) error {
	for attempt := 1; ; attempt++ {
		err := fetch()
		if !errors.Is(err, relay.ErrTimeout) || attempt == pageAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.r.cfg.Clock.After(pageRetry.Delay(attempt)):
		}
	}
}
