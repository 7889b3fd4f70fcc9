// Package clock is the one time source of the engine's timers (relay health
// and backoff, sync loops, the frontier's debounce, repository sync's
// window), so tests can drive hours of waiting with a manual clock
// (engine/internal/faultrelay.Clock) instead of sleeping through it.
package clock

import "time"

// Clock tells the time and waits.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// Wall is the wall clock.
type Wall struct{}

// Now returns the current time.
func (Wall) Now() time.Time { return time.Now() }

// After waits for d on the wall clock.
func (Wall) After(d time.Duration) <-chan time.Time { return time.After(d) }
