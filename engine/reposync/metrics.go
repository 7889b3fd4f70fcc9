package reposync

import (
	"sync/atomic"

	"dtp-personal/engine/relay"
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
	gap     atomic.Int64 // events new to us among those re-read after a reconnect
}

func (c *relayCounts) received() int64 {
	n := c.catchup.Load()
	for i := range c.byLayer {
		n += c.byLayer[i].Load()
	}
	return n
}

// Metrics returns the counters of every sync relay (relay.Links.Metrics, as
// the trust profile's; SPEC §11, prefix dtp_repo_sync_).
func (s *Syncer) Metrics() relay.Metrics {
	return s.links.Metrics(func(url string) relay.Received {
		s.mu.Lock()
		c := s.counts[url]
		s.mu.Unlock()
		if c == nil {
			return relay.Received{}
		}
		r := relay.Received{BySource: map[string]int64{sourceCatchup: c.catchup.Load()}, GapEvents: c.gap.Load()}
		for _, l := range []layer{layerAnnouncements, layerRepos, layerRoots} {
			r.BySource[l.String()] = c.byLayer[l].Load()
		}
		return r
	})
}
