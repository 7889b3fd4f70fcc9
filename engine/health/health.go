// Package health is one relay's connection health: the persisted figures and
// the retry state machine of SPEC §6.5. It is pure (no network, no SQL) so the
// store can persist it and the relay links can drive it.
package health

import (
	"time"

	"dtp-personal/engine/status"
)

// Retry policy of SPEC §6.5 (GRASP-02).
const (
	BackoffBase = 5 * time.Second  // first retry after a failure
	BackoffCap  = time.Hour        // backoff doubles up to this, then hourly
	DeadAfter   = 24 * time.Hour   // continuous failure that makes a relay dead
	DeadRetry   = 24 * time.Hour   // a dead relay is retried once a day
	StableAfter = 30 * time.Second // up and useful this long = the relay has recovered
)

// Profile names the sync profile a relay's health belongs to. Each profile
// keeps its own health per relay: a relay both profiles use has two, since
// each profile has its own connection, failures and progress there, and
// status shows them apart (status.Relay, status.RepoRelay).
type Profile string

// The sync profiles (stored as these names: do not change them).
const (
	ProfileTrust      Profile = "trust"      // engine/trustsync: the user's relays
	ProfileRepository Profile = "repository" // engine/reposync: relays listed by repositories
)

// Health is one relay's connection health (times are unix seconds, 0 = never).
type Health struct {
	URL                 string
	State               string // status.HealthHealthy | HealthBackoff | HealthHourly | HealthDead
	ConsecutiveFailures int
	FirstFailureAt      int64
	LastAttemptAt       int64
	LastSuccessAt       int64
	LastConnectedAt     int64
	NextRetryAt         int64
	LastError           string
	EventsFetched       int64
	EventsStored        int64 // of those fetched, new to us when they arrived
	OldestReached       int64
	NewestReached       int64
	// What NIP-77 did in the relay's last full refresh that offered it
	// (status.Refresh), kept here so any process's status shows it.
	RefreshNIP77 string // status.NIP77Used | NIP77Unsupported | NIP77Unknown; "" = none yet
	RefreshIDs   int64
	RefreshBytes int64
	// The relay's NIP-11 limitation as last read (0 = not published), for
	// the connections on which its document cannot be read.
	MaxSubscriptions int
	MaxLimit         int
	MaxMessageLength int
	// Repository sync's resume point (0 = none): when its last full
	// catch-up of the relay began, what it covered (a digest), and the last
	// moment everything received from the relay was committed, so a restart
	// the same UTC day re-reads only from CommittedAt − 15 min.
	CaughtUpAt  int64
	CaughtUpFor string
	CommittedAt int64
	// CoveredRoots is a digest of the root events whose whole thread the
	// relay was asked for (at the last full catch-up, or once every owed
	// filter was paid): a start that holds other roots (one imported while
	// stopped, or owed at the stop) asks for their threads at once instead
	// of at the next UTC day's catch-up.
	CoveredRoots string
}

// New is the health of a relay never tried.
func New(url string) Health {
	return Health{URL: url, State: status.HealthHealthy}
}

// Due reports whether a connection attempt is allowed at now.
func (h *Health) Due(now time.Time) bool { return h.NextRetryAt <= now.Unix() }

// Attempt records a connection attempt.
func (h *Health) Attempt(now time.Time) { h.LastAttemptAt = now.Unix() }

// Connected records an accepted connection. It does not reset the backoff:
// a relay that accepts and then drops must not cause a reconnect storm.
func (h *Health) Connected(now time.Time) { h.LastConnectedAt = now.Unix() }

// Useful records a useful answer (EOSE or event) on the current connection;
// once the connection has been up for StableAfter the relay counts as
// recovered.
func (h *Health) Useful(now time.Time) {
	h.LastSuccessAt = now.Unix()
	h.Settle(now)
}

// Settle re-checks a connection that is still up: once it has been up and
// useful for StableAfter the relay counts as recovered.
func (h *Health) Settle(now time.Time) {
	if h.ConsecutiveFailures > 0 && h.stable(now) {
		h.recover()
	}
}

// Closed records that we closed the connection ourselves after it finished
// its work (a sync pass): if it answered usefully, the relay works.
func (h *Health) Closed(now time.Time) {
	if h.LastConnectedAt > 0 && h.LastSuccessAt >= h.LastConnectedAt {
		h.recover()
	}
}

// Dropped records the end of a connection we did not ask for. A connection
// that was stable reconnects at once; one that accepted and then dropped
// counts as a failure, so the backoff keeps growing.
func (h *Health) Dropped(now time.Time, err error) {
	if h.stable(now) {
		h.recover()
		h.LastError = errText(err)
		h.NextRetryAt = now.Unix()
		return
	}
	h.Failed(now, err)
}

// Failed records a failed attempt or an unstable connection and schedules
// the next retry: backoff doubling from 5 s to 1 h, then hourly, then (after
// 24 h of continuous failure) dead with a daily retry.
func (h *Health) Failed(now time.Time, err error) {
	t := now.Unix()
	h.ConsecutiveFailures++
	h.LastError = errText(err)
	if h.FirstFailureAt == 0 {
		h.FirstFailureAt = t
	}
	if time.Duration(t-h.FirstFailureAt)*time.Second >= DeadAfter {
		h.State = status.HealthDead
		h.NextRetryAt = t + int64(DeadRetry/time.Second)
		return
	}
	delay := BackoffCap
	if shift := h.ConsecutiveFailures - 1; shift < 20 && BackoffBase<<shift < BackoffCap {
		delay = BackoffBase << shift
	}
	h.State = status.HealthBackoff
	if delay == BackoffCap {
		h.State = status.HealthHourly
	}
	h.NextRetryAt = t + int64(delay/time.Second)
}

// stable: the current connection has been up StableAfter and answered
// something useful since it opened.
func (h *Health) stable(now time.Time) bool {
	return h.LastConnectedAt > 0 && h.LastSuccessAt >= h.LastConnectedAt &&
		now.Unix()-h.LastConnectedAt >= int64(StableAfter/time.Second)
}

func (h *Health) recover() {
	h.State = status.HealthHealthy
	h.ConsecutiveFailures = 0
	h.FirstFailureAt = 0
	h.NextRetryAt = 0
	h.LastError = ""
}

func errText(err error) string {
	if err == nil {
		return "connection closed"
	}
	return err.Error()
}
