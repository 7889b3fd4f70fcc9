package ui

import (
	"time"

	"dtp-personal/engine/status"
)

const (
	rateWindow = 15 * time.Minute
	// rateStep is the least time between kept samples: snapshots come a few
	// a second, and 180 points over the window draw as smoothly as 3,600.
	rateStep = 5 * time.Second
)

// rateSample is the ingest counters at one moment.
type rateSample struct {
	at                             time.Time
	accepted, duplicates, rejected int64
}

// rateHistory keeps the ingest counters of the last rateWindow, so the
// Activity chart can show per-second rates whichever tab was open.
type rateHistory struct {
	samples []rateSample
	steps   int // samples appended so far: the chart redraws when it changes, every rateStep, not per snapshot
}

// add records the counters of a snapshot taken at now.
func (h *rateHistory) add(now time.Time, in status.Ingest) {
	s := rateSample{now, in.Accepted, in.Duplicates, in.Rejected}
	if n := len(h.samples); n > 1 && h.samples[n-1].at.Sub(h.samples[n-2].at) < rateStep {
		h.samples[n-1] = s // the newest sample moves on until it is a step from the one before
	} else {
		h.samples = append(h.samples, s)
		h.steps++
	}
	old := 0
	for old < len(h.samples) && now.Sub(h.samples[old].at) > rateWindow {
		old++
	}
	h.samples = h.samples[old:]
}

// ratePoint is the rates between two samples, placed at the later one.
type ratePoint struct {
	ago                            time.Duration // before the newest sample
	accepted, duplicates, rejected float64       // per second
}

// points is the per-second rates over the window, oldest first. A counter
// that went down (the engine restarted) starts the series anew.
func (h *rateHistory) points() []ratePoint {
	var out []ratePoint
	if len(h.samples) < 2 {
		return out
	}
	newest := h.samples[len(h.samples)-1].at
	for i := 1; i < len(h.samples); i++ {
		a, b := h.samples[i-1], h.samples[i]
		secs := b.at.Sub(a.at).Seconds()
		if secs <= 0 || b.accepted < a.accepted || b.duplicates < a.duplicates || b.rejected < a.rejected {
			out = out[:0]
			continue
		}
		out = append(out, ratePoint{
			ago:        newest.Sub(b.at),
			accepted:   float64(b.accepted-a.accepted) / secs,
			duplicates: float64(b.duplicates-a.duplicates) / secs,
			rejected:   float64(b.rejected-a.rejected) / secs,
		})
	}
	return out
}
