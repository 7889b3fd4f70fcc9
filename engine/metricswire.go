package engine

import (
	"dtp-personal/engine/metrics"
	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
)

// registerMetrics exposes the engine's state as Prometheus series (SPEC §11),
// read fresh at each scrape, beside the standard go_* and process_* series.
func (e *Engine) registerMetrics() {
	r := e.metrics
	r.AddRuntimeCollectors()
	duplicates := r.NewCopiedCounter("dtp_ingest_duplicates_total", "Events answered as duplicates (same id, or older than the slot winner).")
	heapNodes := r.NewGauge("dtp_heap_nodes", "Nodes in the trust graph.")
	heapEdges := r.NewGauge("dtp_heap_edges", "Edges in the trust graph.")
	graphVersion := r.NewGauge("dtp_heap_graph_version", "Trust graph version.")
	frontierSize := r.NewGauge("dtp_frontier_size", "Authors in the sync frontier.")
	truncations := r.NewGauge("dtp_frontier_truncated", "Authors or events cut from the frontier, by cap.", "reason")
	relays := registerRelayMetrics(r, "dtp_")
	passes := r.NewCopiedCounter("dtp_sync_passes_total", "Sync passes finished.")
	passDuration := r.NewGauge("dtp_sync_pass_duration_seconds", "Duration of the last sync pass.")

	r.OnCollect(func(*metrics.Registry) {
		duplicates.Set(float64(e.ingest.Duplicates()))
		hs := e.trust.heap.Stats()
		heapNodes.Set(float64(hs.Nodes))
		heapEdges.Set(float64(hs.Edges))
		graphVersion.Set(float64(hs.GraphVersion))
		fs := e.frontierStatus()
		frontierSize.Set(float64(fs.Size))
		truncations.Reset()
		for _, t := range fs.Truncation {
			truncations.Set(float64(t.Cut), t.Reason)
		}
		m := e.sync.Metrics()
		relays(m.Metrics)
		passes.Set(float64(m.Passes))
		passDuration.Set(m.PassDurationSeconds)
	})
}

// registerRelayMetrics registers a sync profile's relay series, named from
// prefix ("dtp_" for trust sync, "dtp_repo_sync_" for repository sync), and
// returns what sets them from the profile's figures at each scrape: both
// profiles' relays read alike.
func registerRelayMetrics(r *metrics.Registry, prefix string) func(relay.Metrics) {
	connected := r.NewGauge(prefix+"relay_connected", "1 when the relay is connected.", "relay")
	attempts := r.NewCopiedCounter(prefix+"relay_connection_attempts_total", "Connection attempts, by result.", "relay", "result")
	health := r.NewGauge(prefix+"relay_health_state", "1 for the relay's current health state.", "relay", "state")
	failures := r.NewGauge(prefix+"relay_consecutive_failures", "Consecutive failures of the relay.", "relay")
	received := r.NewCopiedCounter(prefix+"relay_events_received_total", "Events received from the relay, by source.", "relay", "source")
	gaps := r.NewCopiedCounter(prefix+"relay_gap_events_total", "Events re-read to fill a gap after a drop or back-pressure.", "relay")
	garbage := r.NewCopiedCounter(prefix+"relay_garbage_frames_total", "Frames from the relay that were not valid relay messages.", "relay")
	mismatched := r.NewCopiedCounter(prefix+"relay_mismatched_events_total", "Events from the relay that did not match their subscription's filters (dropped).", "relay")
	refusals := r.NewCopiedCounter(prefix+"relay_refusals_total", "NOTICEs and CLOSEDs from the relay refusing work for load (too many REQs, rate limits).", "relay")
	requests := r.NewCopiedCounter(prefix+"relay_requests_total", "Requests sent to the relay, by kind: req (NIP-01 REQs, pages and live subscriptions) and nip77 (reconciliations opened).", "relay", "kind")
	bytesIn := r.NewCopiedCounter(prefix+"relay_received_bytes_total", "Bytes of the frames the relay sent.", "relay")
	tracked := r.NewGauge(prefix+"relays_tracked", "Relays of the profile.")
	relaysConnected := r.NewGauge(prefix+"relays_connected", "Relays connected.")
	dead := r.NewGauge(prefix+"relays_dead", "Relays in the dead health state.")
	return func(m relay.Metrics) {
		for _, g := range []metrics.Gauge{connected, attempts, health, failures, received, gaps, garbage, mismatched, refusals, requests, bytesIn} {
			g.Reset()
		}
		for _, rm := range m.Relays {
			connected.Set(boolFloat(rm.Connected), rm.URL)
			attempts.Set(float64(rm.AttemptsOK), rm.URL, "ok")
			attempts.Set(float64(rm.AttemptsFailed), rm.URL, "failed")
			for _, state := range []string{status.HealthHealthy, status.HealthBackoff, status.HealthHourly, status.HealthDead} {
				health.Set(boolFloat(rm.Health == state), rm.URL, state)
			}
			failures.Set(float64(rm.ConsecutiveFailures), rm.URL)
			for source, n := range rm.BySource {
				received.Set(float64(n), rm.URL, source)
			}
			gaps.Set(float64(rm.GapEvents), rm.URL)
			garbage.Set(float64(rm.GarbageFrames), rm.URL)
			mismatched.Set(float64(rm.MismatchedEvents), rm.URL)
			refusals.Set(float64(rm.Refusals), rm.URL)
			requests.Set(float64(rm.Requests), rm.URL, "req")
			requests.Set(float64(rm.Reconciliations), rm.URL, "nip77")
			bytesIn.Set(float64(rm.BytesReceived), rm.URL)
		}
		tracked.Set(float64(m.RelaysTracked))
		relaysConnected.Set(float64(m.RelaysConnected))
		dead.Set(float64(m.RelaysDead))
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
