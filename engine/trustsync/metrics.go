package trustsync

import (
	"sync"
	"sync/atomic"
	"time"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
)

// Metrics is a point-in-time copy of the sync counters (SPEC §11). Suggested
// Prometheus names, label relay="<url>":
//
//	dtp_relay_connected (gauge), dtp_relay_connection_attempts_total{result="ok|failed"},
//	dtp_relay_health_state{state} (gauge 0/1), dtp_relay_consecutive_failures (gauge),
//	dtp_relay_events_received_total{source="pass|live"}, dtp_relay_gap_events_total,
//	dtp_relay_garbage_frames_total, dtp_relay_mismatched_events_total, dtp_relays_tracked, dtp_relays_connected, dtp_relays_dead,
//	dtp_sync_passes_total, dtp_sync_pass_duration_seconds (last pass).
type Metrics struct {
	Relays              []RelayMetrics
	RelaysTracked       int
	RelaysConnected     int
	RelaysDead          int
	Passes              int64
	PassDurationSeconds float64 // last pass
}

// RelayMetrics are one relay's counters.
type RelayMetrics struct {
	URL                 string
	Connected           bool
	Health              string
	ConsecutiveFailures int
	AttemptsOK          int64
	AttemptsFailed      int64
	EventsPass          int64 // events received by interval passes
	EventsLive          int64 // events received by live subscriptions
	GapEvents           int64 // events re-read to fill a gap after a drop or back-pressure
	GarbageFrames       int64 // frames that were not valid relay messages
	MismatchedEvents    int64 // events that did not match their subscription's filters (dropped)
}

type metrics struct {
	mu       sync.Mutex
	relays   map[string]*relayCounters
	passes   atomic.Int64
	lastPass atomic.Int64 // nanoseconds
}

type relayCounters struct {
	eventsPass, eventsLive, gapFill atomic.Int64
	garbage, mismatched             atomic.Int64
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

// connEnded adds what a finished connection counted on its own.
func (m *metrics) connEnded(url string, c *relay.Conn) {
	rc := m.relay(url)
	rc.garbage.Add(c.Garbage())
	rc.mismatched.Add(c.Mismatched())
}

func (m *metrics) passDone(d time.Duration) {
	m.passes.Add(1)
	m.lastPass.Store(int64(d))
}

// Metrics returns the counters of every configured relay.
func (r *Runner) Metrics() Metrics {
	st := r.Status()
	out := Metrics{
		Passes:              r.metrics.passes.Load(),
		PassDurationSeconds: time.Duration(r.metrics.lastPass.Load()).Seconds(),
		RelaysTracked:       len(st.Relays),
	}
	for _, rs := range st.Relays {
		rc := r.metrics.relay(rs.URL)
		ok, failed := r.links.Get(rs.URL).Attempts()
		out.Relays = append(out.Relays, RelayMetrics{
			URL: rs.URL, Connected: rs.Connected, Health: rs.Health, ConsecutiveFailures: rs.Failures,
			AttemptsOK: ok, AttemptsFailed: failed,
			EventsPass: rc.eventsPass.Load(), EventsLive: rc.eventsLive.Load(), GapEvents: rc.gapFill.Load(),
			GarbageFrames: rc.garbage.Load(), MismatchedEvents: rc.mismatched.Load(),
		})
		if rs.Connected {
			out.RelaysConnected++
		}
		if rs.Health == status.HealthDead {
			out.RelaysDead++
		}
	}
	return out
}
