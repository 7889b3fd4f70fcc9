package relay

import (
	"math/rand/v2"
	"time"
)

// Backoff is a retry schedule as the extension's retry policy: Initial,
// doubling per failure up to Max, each delay moved by up to ±Jitter of itself
// so many clients do not retry in step.
type Backoff struct {
	Initial, Max time.Duration
	Jitter       float64 // 0.2 = ±20%
}

// liveReopen paces reopening live subscriptions the relay closed (SPEC §6.5):
// 0.5 s, 1 s, 2 s … at most 30 s, ±20%.
var liveReopen = Backoff{Initial: 500 * time.Millisecond, Max: 30 * time.Second, Jitter: 0.2}

// Delay is the wait before the next try after failed failures (1 = the first).
func (b Backoff) Delay(failed int) time.Duration {
	d := b.Initial
	for i := 1; i < failed && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	return time.Duration(float64(d) * (1 + b.Jitter*(2*rand.Float64()-1)))
}
