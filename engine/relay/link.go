package relay

import (
	"context"
	"errors"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
	"dtp-personal/engine/status"
)

// Link is one relay's connection life: it dials when health allows, feeds
// the health machine from what the connection does, and reports every
// health change (for persistence and status).
type Link struct {
	url      string
	opts     func() Options // read at each connection: the settings may have changed
	clock    clock.Clock
	onChange func(health.Health)

	mu       sync.Mutex
	health   health.Health
	open     int // connections open (a pass's beside a live one)
	nip77    NIP77Support
	nip77At  time.Time // when nip77 was learned
	notifyMu sync.Mutex

	attemptsOK, attemptsFailed atomic.Int64 // connection attempts by result, for metrics
	frames                     frameCounts  // over every connection of the link
	allowance                  learnedAllowance
}

// attempts are the connection attempts made through the link, by result.
func (l *Link) attempts() (ok, failed int64) { return l.attemptsOK.Load(), l.attemptsFailed.Load() }

// NewLink starts from a relay's stored health. onChange is called after
// every health change, outside the link's lock.
func NewLink(h health.Health, opts Options, clock clock.Clock, onChange func(health.Health)) *Link {
	return newLink(h, func() Options { return opts }, clock, onChange)
}

func newLink(h health.Health, opts func() Options, clock clock.Clock, onChange func(health.Health)) *Link {
	if h.State == "" {
		h.State = health.New(h.URL).State
	}
	return &Link{url: h.URL, opts: opts, clock: clock, onChange: onChange, health: h}
}

// URL is the relay's address.
func (l *Link) URL() string { return l.url }

// Health is the current health.
func (l *Link) Health() health.Health {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.health
}

// connected reports whether a connection is open.
func (l *Link) connected() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open > 0
}

// update changes the health and reports it. Reports are serialised and
// always carry the latest health, so the last one saved is never stale.
func (l *Link) update(fn func(h *health.Health)) {
	l.mu.Lock()
	fn(&l.health)
	l.mu.Unlock()
	if l.onChange != nil {
		l.notifyMu.Lock()
		l.onChange(l.Health())
		l.notifyMu.Unlock()
	}
}

// connect dials the relay, recording the attempt and its outcome. It does not
// check Due: callers decide whether a retry is wanted (a manual sync may try
// a relay in backoff). Sync profiles connect through Links.Use or Keep.
func (l *Link) connect(ctx context.Context) (*Conn, error) {
	now := l.clock.Now()
	l.update(func(h *health.Health) { h.Attempt(now) })
	opts := l.opts()
	h := l.Health()
	// the limits last read stand when the document cannot be read this time
	opts.limits = relayLimits{maxSubscriptions: h.MaxSubscriptions, maxLimit: h.MaxLimit, maxMessageLength: h.MaxMessageLength}
	opts.counts, opts.allowance = &l.frames, &l.allowance
	opts.onUseful = func() {
		t := l.clock.Now()
		l.update(func(h *health.Health) { h.Useful(t) })
	}
	c, err := Dial(ctx, l.url, opts)
	if err != nil && ctx.Err() != nil {
		// we gave up on it (a pass ended, the strategy changed): that says
		// nothing of the relay, and a backoff would only hold back the next
		// connection, such as the new strategy's
		return nil, err
	}
	if err != nil {
		l.attemptsFailed.Add(1)
		t := l.clock.Now()
		l.update(func(h *health.Health) { h.Failed(t, err) })
		return nil, err
	}
	l.attemptsOK.Add(1)
	t := l.clock.Now()
	l.update(func(h *health.Health) {
		h.Connected(t)
		l.open++
		if lim := c.Limits(); lim.published {
			h.MaxSubscriptions, h.MaxLimit, h.MaxMessageLength = lim.maxSubscriptions, lim.maxLimit, lim.maxMessageLength
		}
	})
	go l.settleWhenStable(c, l.clock.After(health.StableAfter))
	return c, nil
}

// settleWhenStable lets a long-lived connection count as recovered once it
// has stayed up health.StableAfter, without waiting for its end.
func (l *Link) settleWhenStable(c *Conn, stable <-chan time.Time) {
	select {
	case <-c.done():
	case <-stable:
		if c.err() == nil {
			t := l.clock.Now()
			l.update(func(h *health.Health) { h.Settle(t) })
		}
	}
}

// release ends the use of c. A connection that dropped by itself counts as
// dropped; otherwise it is closed here, and failure (the relay stopped
// answering) counts as a failed attempt, nil as a finished job.
func (l *Link) release(c *Conn, failure error) {
	dropped, cause := c.dropped(), c.err()
	c.Close()
	t := l.clock.Now()
	l.update(func(h *health.Health) {
		l.open--
		switch {
		case dropped:
			h.Dropped(t, cause)
		case failure != nil:
			h.Failed(t, failure)
		default:
			h.Closed(t)
		}
	})
}

// NIP77Support is what a relay's answers said about NIP-77.
type NIP77Support int

const (
	NIP77Unknown NIP77Support = iota
	NIP77Supported
	NIP77Unsupported
)

// nip77Reprobe is how long a relay's refusal of NIP-77 is believed: after
// it, the relay is asked again (it may have been upgraded).
const nip77Reprobe = 24 * time.Hour

// NIP77 is the relay's NIP-77 support as last learned; a refusal older than
// nip77Reprobe reads as unknown.
func (l *Link) NIP77() NIP77Support {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nip77 == NIP77Unsupported && l.clock.Now().Sub(l.nip77At) >= nip77Reprobe {
		return NIP77Unknown
	}
	return l.nip77
}

// reconcile runs c.Reconcile and remembers whether the relay does NIP-77;
// a relay that refused within nip77Reprobe is not asked (a refusal is
// returned at once). A refusal of one query for its size or load
// (reconcileRefusedError.ForQuery) still shows the relay does NIP-77.
func (l *Link) reconcile(ctx context.Context, c *Conn, f nostr.Filter, local iter.Seq2[nostr.Timestamp, string]) (Reconciliation, error) {
	if l.NIP77() == NIP77Unsupported {
		return Reconciliation{}, &reconcileRefusedError{reason: "refused within the last " + nip77Reprobe.String()}
	}
	rec, err := c.Reconcile(ctx, f, local)
	var refused *reconcileRefusedError
	switch {
	case err == nil || errors.As(err, &refused) && refused.forQuery:
		l.learnNIP77(NIP77Supported)
	case refused != nil:
		l.learnNIP77(NIP77Unsupported)
	}
	return rec, err
}

// ReconcileHeld reconciles f with the relay over the events we hold of it,
// which held reads (at most max of them: store.Stamps, AuthoredStamps), and
// notes the outcome in tally. It returns ErrNotReconciled, asking nothing,
// where reconciling cannot help: the relay refused NIP-77 lately, more than
// lim.Max of f is held (reconcileMax for a filter a paged REQ would answer:
// paging decides), or nothing is and lim.Empty is not set (a first fetch:
// paging sends the events at once). Both sync profiles decide this here.
func ReconcileHeld[S any](ctx context.Context, l *Link, c *Conn, f nostr.Filter, lim HeldLimit,
	held func(max int) ([]S, error), pairs func([]S) iter.Seq2[nostr.Timestamp, string], tally *RefreshTally) ([]S, Reconciliation, error) {
	if l.NIP77() == NIP77Unsupported {
		return nil, Reconciliation{}, ErrNotReconciled
	}
	local, err := held(lim.Max + 1)
	if err != nil {
		return nil, Reconciliation{}, err
	}
	if len(local) == 0 && !lim.Empty || len(local) > lim.Max {
		return nil, Reconciliation{}, ErrNotReconciled
	}
	rec, err := l.reconcile(ctx, c, f, pairs(local))
	tally.note(rec, len(local), err)
	return local, rec, err
}

// HeldLimit is when ReconcileHeld reconciles: at most Max events held, and
// with none held only when Empty is set.
type HeldLimit struct {
	Max   int
	Empty bool
}

// PagedQuery is the HeldLimit of a filter a paged REQ would answer.
var PagedQuery = HeldLimit{Max: reconcileMax}

func (l *Link) learnNIP77(s NIP77Support) {
	l.mu.Lock()
	l.nip77, l.nip77At = s, l.clock.Now()
	l.mu.Unlock()
}

// CaughtUp records that a full catch-up of the relay's history, begun at t
// and covering what scope names, finished (repository sync's; kept with the
// health, so a restart knows it).
func (l *Link) CaughtUp(t time.Time, scope string) {
	l.update(func(h *health.Health) { h.CaughtUpAt, h.CaughtUpFor = t.Unix(), scope })
}

// RootsCovered records which root events' threads (a digest) the relay
// was last asked for in full (repository sync).
func (l *Link) RootsCovered(digest string) {
	l.update(func(h *health.Health) { h.CoveredRoots = digest })
}

// committed records that everything received from the relay up to t is
// committed: where a restart resumes from (less ReconnectWindow).
func (l *Link) committed(t time.Time) {
	l.update(func(h *health.Health) { h.CommittedAt = max(h.CommittedAt, t.Unix()) })
}

// Stored adds n events of the relay's that were new to us when committed.
func (l *Link) Stored(n int) {
	if n > 0 {
		l.update(func(h *health.Health) { h.EventsStored += int64(n) })
	}
}

// Fetched adds a REQ's results to the relay's progress figures.
func (l *Link) Fetched(st FetchStats) {
	if st.Events == 0 {
		return
	}
	l.update(func(h *health.Health) {
		h.EventsFetched += int64(st.Events)
		widen(&h.OldestReached, &h.NewestReached, st.oldest, st.newest)
	})
}

// Row is the relay's status row as its health has it, in both profiles:
// state is what the profile does with the relay now ("" = idle).
func (l *Link) Row(state string) status.Relay {
	if state == "" {
		state = status.StateIdle
	}
	h := l.Health()
	return status.Relay{
		URL: l.url, Health: h.State, State: state, Connected: l.connected(),
		LastSuccess: h.LastSuccessAt, EventsFetched: h.EventsFetched, EventsStored: h.EventsStored,
		OldestReached: h.OldestReached, NewestReached: h.NewestReached,
		Failures: h.ConsecutiveFailures, NextRetry: h.NextRetryAt, LastError: h.LastError,
		Refresh: l.refreshStatus(),
	}
}
