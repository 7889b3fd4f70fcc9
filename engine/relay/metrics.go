package relay

import "dtp-personal/engine/status"

// Metrics are a sync profile's relay figures for /metrics (SPEC §11). Both
// profiles' are built by Links.Metrics, so their series read alike.
type Metrics struct {
	Relays          []LinkMetrics
	RelaysTracked   int
	RelaysConnected int
	RelaysDead      int
}

// LinkMetrics are one relay's figures: the link's own (health, attempts,
// frames) and what the profile received from it.
type LinkMetrics struct {
	URL                 string
	Connected           bool
	Health              string
	ConsecutiveFailures int
	AttemptsOK          int64
	AttemptsFailed      int64
	GarbageFrames       int64 // frames that were not valid relay messages
	MismatchedEvents    int64 // events that did not match their subscription's filters (dropped)
	Refusals            int64 // NOTICEs and CLOSEDs refusing work for load
	Requests            int64 // REQs sent
	Reconciliations     int64 // NIP-77 reconciliations opened
	BytesReceived       int64 // bytes of the frames the relay sent
	Received
}

// Received is what a profile received from a relay.
type Received struct {
	BySource  map[string]int64 // events by the profile's sources
	GapEvents int64            // events re-read to fill a gap after a drop or back-pressure
}

// Metrics are the figures of every link; received gives what the profile
// received from each relay.
func (ls *Links) Metrics(received func(url string) Received) Metrics {
	links := ls.All()
	m := Metrics{RelaysTracked: len(links)}
	for _, l := range links {
		h := l.Health()
		ok, failed := l.attempts()
		lm := LinkMetrics{
			URL: l.URL(), Connected: l.connected(), Health: h.State, ConsecutiveFailures: h.ConsecutiveFailures,
			AttemptsOK: ok, AttemptsFailed: failed,
			GarbageFrames: l.frames.Garbage(), MismatchedEvents: l.frames.Mismatched(), Refusals: l.frames.Refusals(),
			Requests: l.frames.requests(), Reconciliations: l.frames.reconciliations(), BytesReceived: l.frames.bytesReceived(),
			Received: received(l.URL()),
		}
		if lm.Connected {
			m.RelaysConnected++
		}
		if lm.Health == status.HealthDead {
			m.RelaysDead++
		}
		m.Relays = append(m.Relays, lm)
	}
	return m
}
