package engine

import (
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/metrics"
	"dtp-personal/engine/status"
)

// recentRejections is how many refused events the status keeps for display.
const recentRejections = 50

// ingestStats counts what the pipeline did, for status and /metrics.
type ingestStats struct {
	accepted   metrics.Counter
	rejectedBy metrics.Counter

	mu       sync.Mutex
	total    status.Ingest
	recent   []status.Rejection
	rateAt   time.Time
	rateBase int64
}

func newIngestStats(reg *metrics.Registry) *ingestStats {
	return &ingestStats{
		accepted:   reg.NewCounter("dtp_ingest_accepted_total", "Events stored by the ingest pipeline.", "source"),
		rejectedBy: reg.NewCounter("dtp_ingest_rejected_total", "Events refused, by rule prefix.", "reason"),
		rateAt:     time.Now(),
	}
}

func (s *ingestStats) committed(c ingest.Committed) {
	for _, src := range c.Sources {
		s.accepted.Inc(sourceLabel(src))
	}
	s.mu.Lock()
	s.total.Accepted += int64(len(c.Stored))
	s.mu.Unlock()
}

// syncSource starts the source of every event trust sync fetched.
const syncSource = "sync:"

func (s *ingestStats) rejected(ev *nostr.Event, source, reason string) {
	prefix, _, _ := strings.Cut(reason, ":")
	s.rejectedBy.Inc(prefix)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total.Rejected++
	s.recent = append(s.recent, status.Rejection{At: time.Now().Unix(), EventID: ev.ID, Source: source, Reason: reason})
	if len(s.recent) > recentRejections {
		s.recent = s.recent[len(s.recent)-recentRejections:]
	}
}

// sourceLabel folds per-relay sources ("sync:wss://…") into their family so
// the metric's label set stays small.
func sourceLabel(src string) string {
	family, _, _ := strings.Cut(src, ":")
	return family
}

// snapshot returns the counters and the accepted rate since the last call.
func (s *ingestStats) snapshot(duplicates int64) status.Ingest {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if dt := now.Sub(s.rateAt).Seconds(); dt >= 1 {
		s.total.AcceptedPerSec = float64(s.total.Accepted-s.rateBase) / dt
		s.rateAt, s.rateBase = now, s.total.Accepted
	}
	out := s.total
	out.Duplicates = duplicates
	out.RecentRejections = append([]status.Rejection(nil), s.recent...)
	return out
}
