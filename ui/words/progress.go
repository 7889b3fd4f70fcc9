package words

import (
	"fmt"

	"dtp-personal/engine/status"
)

// Pace is a running pass's pace and time left, as far as it knows them:
// " · 8,120 events/s · about 2 min left" (empty while it knows neither).
func Pace(p status.Progress) string {
	var out string
	if p.EventsPerSecond >= 1 {
		out += " · " + Count(int64(p.EventsPerSecond)) + " events/s"
	}
	if p.SecondsLeft > 0 {
		out += " · " + TimeLeft(p.SecondsLeft)
	}
	return out
}

// TimeLeft is s seconds left as a person estimates them: "about 40 s left",
// "about 12 min left", "about 2 h 5 min left".
func TimeLeft(s int64) string {
	var d string
	switch {
	case s < 90:
		d = fmt.Sprintf("%d s", s)
	case s < 90*60:
		d = fmt.Sprintf("%d min", (s+30)/60)
	default:
		m := (s + 30) / 60
		d = fmt.Sprintf("%d h %d min", m/60, m%60)
	}
	return "about " + d + " left"
}
