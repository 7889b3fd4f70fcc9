package words

import (
	"fmt"
	"time"
)

// Clock is the time and zone that times are said against.
type Clock struct {
	Now  func() time.Time
	Zone *time.Location
}

// SystemClock is the machine's clock in its local zone.
func SystemClock() Clock { return Clock{Now: time.Now, Zone: time.Local} }

// Stamp shows a unix time as a local date and time; 0 shows none.
func (c Clock) Stamp(unix int64, none string) string {
	if unix == 0 {
		return none
	}
	return time.Unix(unix, 0).In(c.zone()).Format("2006-01-02 15:04")
}

// Day shows a unix time as a local date.
func (c Clock) Day(unix int64) string {
	return time.Unix(unix, 0).In(c.zone()).Format("2006-01-02")
}

// At shows a unix time as the local time of day ("17:43"), with the date
// when it is not today.
func (c Clock) At(unix int64) string {
	t := time.Unix(unix, 0).In(c.zone())
	if t.Format("2006-01-02") == c.Now().In(c.zone()).Format("2006-01-02") {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// Relative shows a unix time as "5 min ago" / "in 5 min"; 0 shows none.
func (c Clock) Relative(unix int64, none string) string {
	if unix == 0 {
		return none
	}
	d := time.Unix(unix, 0).Sub(c.Now()).Round(time.Second)
	switch {
	case d < -time.Second:
		return roughDuration(-d) + " ago"
	case d > time.Second:
		return "in " + roughDuration(d)
	}
	return "now"
}

// Retrying says when a relay that keeps its own connection (live sync,
// repository sync) is tried again: "retrying in 20 s", or "retrying now"
// once that time has come (the engine is about to try, or trying: "2 s ago"
// would read as a retry that happened).
func (c Clock) Retrying(unix int64) string {
	if time.Unix(unix, 0).Sub(c.Now()) <= time.Second {
		return "retrying now"
	}
	return "retrying " + c.Relative(unix, "")
}

func (c Clock) zone() *time.Location {
	if c.Zone == nil {
		return time.Local
	}
	return c.Zone
}

func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}
