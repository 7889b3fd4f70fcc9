package trustsync

import (
	"sync"
	"sync/atomic"
	"time"

	"dtp-personal/engine/relay"
)

// Event sources counted per relay (dtp_relay_events_received_total).
const (
	SourcePass = "pass" // interval passes
	SourceLive = "live" // live subscriptions
)

// Metrics is a point-in-time copy of the sync counters (SPEC §11): the
// relays' (relay.Links.Metrics, as the repository profile's) and the passes'.
type Metrics struct {
	relay.Metrics
	Passes              int64
	PassDurationSeconds float64 // last pass
}

type metrics struct {
	mu       sync.Mutex
	relays   map[string]*relayCounters
	passes   atomic.Int64
	lastPass atomic.Int64 // nanoseconds
}

type relayCounters struct {
	eventsPass, eventsLive, gapFill atomic.Int64
}

func (m *metrics) relay(url string) *relayCounters {
	m.mu.Lock()
	defer m.mu.Unlock()
	rc, ok := m.relays[url]
	if !ok {
		rc = &relayCounters{}
		m.relays[url] = rc
	}
	return rc
}

func (m *metrics) passDone(d time.Duration) {
	m.passes.Add(1)
	m.lastPass.Store(int64(d))
}

// Metrics returns the counters of every configured relay.
func (r *Runner) Metrics() Metrics {
	return Metrics{
		Metrics: r.links.Metrics(func(url string) relay.Received {
			rc := r.metrics.relay(url)
			return relay.Received{
				BySource:  map[string]int64{SourcePass: rc.eventsPass.Load(), SourceLive: rc.eventsLive.Load()},
				GapEvents: rc.gapFill.Load(),
			}
		}),
		Passes:              r.metrics.passes.Load(),
		PassDurationSeconds: time.Duration(r.metrics.lastPass.Load()).Seconds(),
	}
}
