package relay

import "time"

// Clock is the time source of the health machine and the sync loops, so
// tests can drive days of backoff with a manual clock.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// After waits for d on the wall clock.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
