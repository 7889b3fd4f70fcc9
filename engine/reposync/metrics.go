package reposync

import (
	"sync/atomic"

	"dtp-personal/engine/status"
)

// Event sources counted per relay (dtp_repo_sync_events_received_total).
const (
	sourceCatchup = "catchup" // history: the daily catch-up and new filters' backlog
)

// relayCounts are one relay's counters; they live as long as the Syncer,
// across reconnects.
type relayCounts struct {
	byLayer [4]atomic.Int64 // live events by Layer (index 1–3)
	catchup atomic.Int64
	gap     atomic.Int64 // events re-read after a reconnect
}

func (c *relayCounts) received() int64 {
	n := c.catchup.Load()
	for i := range c.byLayer {
		n += c.byLayer[i].Load()
	}
	return n
}

// Metrics is a point-in-time copy of the profile's counters (SPEC §11,
// prefix dtp_repo_sync_).
type Metrics struct {
	Relays          []RelayMetrics
	RelaysTracked   int
	RelaysConnected int
	RelaysDead      int
}

// RelayMetrics are one sync relay's counters.
type RelayMetrics struct {
	URL                 string
	Connected           bool
	Health              string
	ConsecutiveFailures int
	AttemptsOK          int64
	AttemptsFailed      int64
	Received            map[string]int64 // by source: layer1, layer2, layer3, catchup
	GapEvents           int64
}

// Metrics returns the counters of every sync relay.
func (s *Syncer) Metrics() Metrics {
	st := s.Status()
	s.mu.Lock()
	defer s.mu.Unlock()
	m := Metrics{RelaysTracked: len(st.Relays)}
	for _, r := range st.Relays {
		c := s.counts[r.URL]
		if c == nil {
			continue
		}
		ok, failed := s.links.Get(r.URL).Attempts()
		rm := RelayMetrics{
			URL: r.URL, Connected: r.Connected, Health: r.Health, ConsecutiveFailures: r.Failures,
			AttemptsOK: ok, AttemptsFailed: failed,
			GapEvents: c.gap.Load(), Received: map[string]int64{sourceCatchup: c.catchup.Load()},
		}
		for _, l := range []layer{layerAnnouncements, layerRepos, layerRoots} {
			rm.Received[l.String()] = c.byLayer[l].Load()
		}
		if r.Connected {
			m.RelaysConnected++
		}
		if r.Health == status.HealthDead {
			m.RelaysDead++
		}
		m.Relays = append(m.Relays, rm)
	}
	return m
}
