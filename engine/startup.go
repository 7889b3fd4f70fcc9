package engine

import "time"

// startClock times the parts of Open for the log line that ends it: where
// a start goes is the first question when it is slow (issue 26: restart to
// the first answer at a million events).
type startClock struct {
	start, last time.Time
	parts       []any // part name, duration, …
}

func newStartClock() *startClock {
	now := time.Now()
	return &startClock{start: now, last: now}
}

// lap records the time since the last lap as part's.
func (c *startClock) lap(part string) {
	now := time.Now()
	c.parts = append(c.parts, part, now.Sub(c.last).Round(time.Millisecond))
	c.last = now
}

// attrs are the laps and their total, as slog attributes.
func (c *startClock) attrs() []any {
	return append([]any{"total", c.last.Sub(c.start).Round(time.Millisecond)}, c.parts...)
}
