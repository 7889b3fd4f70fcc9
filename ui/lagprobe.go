package ui

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"sync"
	"time"
)

// LagReportEnv names the environment variable that turns the event-loop lag
// probe on: set to a file path, the app measures how long UI callbacks wait
// while it runs and writes a LagReport there when it stops.
const LagReportEnv = "DTP_UI_LAG_REPORT"

// lagProbeInterval is how often the probe asks the UI thread for a turn.
const lagProbeInterval = 20 * time.Millisecond

// LagReport sums up how long callbacks handed to the UI thread waited before
// they ran: the longest wait is the longest the window could not react.
type LagReport struct {
	Samples int     `json:"samples"`
	MaxMs   float64 `json:"maxMs"`
	P99Ms   float64 `json:"p99Ms"`
	P50Ms   float64 `json:"p50Ms"`
	// MaxAtS is when the longest wait began, in seconds after probing started
	// (with the UI loop): it tells start-up from work that came later.
	MaxAtS float64 `json:"maxAtS"`
}

// lagProbe schedules a callback on the UI thread every interval and records
// the delay between scheduling and running. One callback is outstanding at a
// time, so a blocked loop shows as one long sample and the probe never
// floods the queue it measures.
type lagProbe struct {
	schedule func(func()) // fyne.Do in the app
	interval time.Duration

	started time.Time
	mu      sync.Mutex
	lags    []time.Duration
	max     time.Duration
	maxAt   time.Duration // since started, when the longest lag began

	stop   chan struct{}
	exited chan struct{}
	once   sync.Once
}

// startLagProbe starts probing at once; report ends it.
func startLagProbe(schedule func(func()), interval time.Duration) *lagProbe {
	p := &lagProbe{schedule: schedule, interval: interval, started: time.Now(), stop: make(chan struct{}), exited: make(chan struct{})}
	go p.run()
	return p
}

func (p *lagProbe) run() {
	defer close(p.exited)
	tick := time.NewTicker(p.interval)
	defer tick.Stop()
	for {
		ran := make(chan time.Duration, 1)
		scheduled := time.Now()
		p.schedule(func() { ran <- time.Since(scheduled) })
		select {
		case lag := <-ran:
			p.mu.Lock()
			if lag > p.max {
				p.max, p.maxAt = lag, scheduled.Sub(p.started)
			}
			p.lags = append(p.lags, lag)
			p.mu.Unlock()
		case <-p.stop: // the loop is stopping and may never run the callback
			return
		}
		select {
		case <-tick.C:
		case <-p.stop:
			return
		}
	}
}

// report ends probing and sums up the samples taken.
func (p *lagProbe) report() LagReport {
	p.once.Do(func() { close(p.stop) })
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	r := summarize(p.lags)
	r.MaxAtS = p.maxAt.Seconds()
	return r
}

// summarize gives the count, maximum and nearest-rank percentiles of lags.
func summarize(lags []time.Duration) LagReport {
	sorted := slices.Sorted(slices.Values(lags))
	r := LagReport{Samples: len(sorted)}
	if len(sorted) == 0 {
		return r
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	// The smallest sample with at least fraction q of all samples at or below it.
	rank := func(q float64) time.Duration { return sorted[max(0, int(math.Ceil(q*float64(len(sorted))))-1)] }
	r.MaxMs, r.P99Ms, r.P50Ms = ms(sorted[len(sorted)-1]), ms(rank(0.99)), ms(rank(0.50))
	return r
}

// writeLagReport stops the probe and writes its report as JSON to path.
func writeLagReport(p *lagProbe, path string) error {
	b, err := json.Marshal(p.report())
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
