package reposync

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
)

// repoRelay is one sync relay as repository sync keeps it, the profile of
// its relay.Session (which connects, ingests, recovers and rests): history
// first (paged with until, history.go), then live subscriptions for its
// full filter set; incremental filters while running (the owed queue,
// owed.go), a reconnect from the last good moment − 15 min, and a full
// catch-up 23–25 h after the last (dailyInterval): spread over the day per
// relay rather than every relay at UTC midnight (ngit-grasp's lesson).
type repoRelay struct {
	s       *Syncer
	url     string
	counts  *relayCounts
	config  []string // our services and the bootstrap relay, for scope
	session *relay.Session

	wants wants
	paged paging
	// caughtUpAt is when the last full catch-up ran, zero before the first;
	// read and written by the connection's hooks only (and set before the
	// session runs).
	caughtUpAt time.Time
}

// newRepoRelay starts from the resume point kept with the relay's health:
// after a restart (or a pause) before the next full catch-up is due, with
// the same scope, only what came since the last commit − 15 min is read
// again. Callers hold s.mu.
func newRepoRelay(s *Syncer, url string, counts *relayCounts, full []layerFilter) *repoRelay {
	c := &repoRelay{s: s, url: url, counts: counts, config: append(s.ix.Services(), s.bootstrap)}
	c.wants.full = full
	c.session = relay.NewSession(s.links, url, c, relay.SessionConfig{Sink: s.cfg.Sink, Live: s.cfg.Live})
	if h := c.session.Link().Health(); h.CaughtUpAt > 0 && h.CommittedAt > 0 && h.CaughtUpFor == c.scope(full) {
		c.caughtUpAt = time.Unix(h.CaughtUpAt, 0)
		c.session.ResumeFrom(time.Unix(h.CommittedAt, 0))
		if roots := rootFilters(full); h.CoveredRoots != rootsDigest(roots) {
			// roots stored while stopped, or owed at the stop: their threads
			// are owed now, not at the next UTC day
			c.wants.update(roots, full, false)
		}
	}
	return c
}

// Catch-up intervals: a relay's next full catch-up is due between
// dailyMin and dailyMin+dailySpread after its last.
const (
	dailyMin    = 23 * time.Hour
	dailySpread = 2 * time.Hour
)

// nextCatchUp is when the next full catch-up is due: the zero time before
// the first, else 23–25 h after the last, the spread drawn from the relay
// and the last catch-up's time (the same after a restart, different for
// each relay and each day).
func (c *repoRelay) nextCatchUp() time.Time {
	if c.caughtUpAt.IsZero() {
		return time.Time{}
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s %d", c.url, c.caughtUpAt.Unix())))
	spread := time.Duration(binary.BigEndian.Uint64(h[:8])%uint64(dailySpread/time.Second)) * time.Second
	return c.caughtUpAt.Add(dailyMin + spread)
}

// catchUpDue reports whether the next full catch-up is due at now.
func (c *repoRelay) catchUpDue(now time.Time) bool { return !now.Before(c.nextCatchUp()) }

// rootFilters are the filters of the roots layer.
func rootFilters(filters []layerFilter) []layerFilter {
	var out []layerFilter
	for _, lf := range filters {
		if lf.Layer == layerRoots {
			out = append(out, lf)
		}
	}
	return out
}

// rootsDigest is a digest of the roots layer's filters: which root events'
// threads they ask for.
func rootsDigest(roots []layerFilter) string {
	h := sha256.New()
	for _, lf := range roots {
		h.Write([]byte(lf.Filter.String() + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Run keeps the relay connected and live until ctx ends (relay.Supervisor).
func (c *repoRelay) Run(ctx context.Context) { c.session.Run(ctx) }

// update queues incremental filters and the relay's new full set (shrunk:
// it lost filters), and wakes the open connection to fetch and subscribe
// them, or to drop what it lost.
func (c *repoRelay) update(incremental, full []layerFilter, shrunk bool) {
	c.wants.update(incremental, full, shrunk)
	c.session.Wake()
}

// scope is a digest of what a full catch-up over filters covers, but for
// the threads of root events: our services and bootstrap relay (which decide
// what is kept) and the announcement and repository filters. A resumed
// start skips what a catch-up of another scope did not ask for (a changed
// configuration, a repository new to the relay), so it asks for everything
// again; root events new to the relay since the last run (an import while
// stopped) come with the next UTC day's catch-up.
func (c *repoRelay) scope(filters []layerFilter) string {
	h := sha256.New()
	for _, s := range c.config {
		h.Write([]byte(s + "\n"))
	}
	for _, lf := range filters {
		if lf.Layer != layerRoots {
			h.Write([]byte(lf.Filter.String() + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Open catches up (everything when the daily catch-up is due and on the
// first connection, else what was missed since the last good moment − 15
// min),
// subscribes the full set, then pays what is owed.
func (c *repoRelay) Open(ctx context.Context, lc *relay.LiveConn, since int64) error {
	clock := c.s.cfg.Clock
	start := clock.Now()
	owedBefore := c.wants.owedNow()
	daily, err := c.catchUp(ctx, lc, c.wants.fullSet(), start, since)
	if err != nil {
		return err
	}
	full := c.wants.subscribingFull(daily, owedBefore)
	if err := lc.Set.Add(ctx, groups(full, start.Add(-relay.ReconnectWindow).Unix())); err != nil {
		return err
	}
	if err := c.addPending(ctx, lc); err != nil {
		return err
	}
	lc.Good(start)
	lc.WakeAt(c.nextCatchUp())
	return nil
}

// Reopen subscribes everything again from the last good moment − 15 min
// after back-pressure.
func (c *repoRelay) Reopen(_ context.Context, lc *relay.LiveConn, since int64) error {
	return lc.Set.Resubscribe(since)
}

// Update replaces the live subscriptions by the full set when it lost
// filters (a repository ended or left the relay: what it no longer wants is
// not sent to us meanwhile), makes the daily catch-up once it is due, then
// pays what is owed.
func (c *repoRelay) Update(ctx context.Context, lc *relay.LiveConn) error {
	now := c.s.cfg.Clock.Now()
	if full, shrunk := c.wants.takeShrunk(); shrunk {
		if err := lc.Set.Replace(groups(full, now.Add(-relay.ReconnectWindow).Unix())); err != nil {
			return err
		}
	}
	if c.catchUpDue(now) {
		if _, err := c.catchUp(ctx, lc, c.wants.fullSet(), now, 0); err != nil {
			return err
		}
		lc.WakeAt(c.nextCatchUp())
	}
	return c.addPending(ctx, lc)
}

// Consolidate is the full set, one group per filter.
func (c *repoRelay) Consolidate() []relay.Group { return groups(c.wants.fullSet(), 0) }

// Received counts a live event by its layer.
func (c *repoRelay) Received(label any, _ *nostr.Event) {
	if l, ok := label.(layer); ok {
		c.counts.byLayer[l].Add(1)
	}
}

// EOSE means nothing here: what is received is committed as it comes, and
// the session's last good moment is the resume point.
func (c *repoRelay) EOSE(any, bool) {}

// catchUp fetches history: everything when the daily catch-up is due (and
// on the first connection), else what was missed since since (0 =
// everything). daily reports which it was.
func (c *repoRelay) catchUp(ctx context.Context, lc *relay.LiveConn, filters []layerFilter, now time.Time, since int64) (daily bool, err error) {
	daily = c.catchUpDue(now)
	// a gap counts the events new to us (a reconnect re-reads 15 min it
	// mostly holds); the catch-up, what it received
	count := func(_ layer, _, stored int) { c.counts.gap.Add(int64(stored)) }
	if daily {
		since = 0
		count = func(_ layer, received, _ int) { c.counts.catchup.Add(int64(received)) }
	}
	var refresh relay.RefreshTally
	if err := lc.Set.StepAside(func() error { return c.fetch(ctx, lc, filters, since, count, &refresh) }); err != nil {
		return daily, err
	}
	if daily {
		c.caughtUpAt = now
		c.paged.clear()
		lc.Link().CaughtUp(now, c.scope(filters))
		lc.Link().RootsCovered(rootsDigest(rootFilters(filters)))
		if f, offered := refresh.Figures(); offered {
			lc.Link().NoteRefresh(f) // what NIP-77 did in it
		}
	}
	lc.Good(now)
	return daily, nil
}

// groups turns filters into a live set's groups labelled by their layer:
// a layer's filters over the same references (#e/#E/#q, #a/#A/#q) form one
// group, which the live set never splits across REQs, so an event they
// share (a NIP-22 comment names its root by e and E) is sent once, not once
// per REQ. since > 0 is set on each.
func groups(filters []layerFilter, since int64) []relay.Group {
	same := sameReferences(filters, since)
	out := make([]relay.Group, len(same))
	for i, g := range same {
		out[i] = relay.Group{Label: g.layer, Filters: g.filters}
	}
	return out
}

// status is the relay's row in the profile's status: the session's row
// (relay.Session.Row) with this profile's columns.
func (c *repoRelay) status() status.RepoRelay {
	row := c.session.Row()
	r := status.RepoRelay{
		URL: c.url, Health: row.Health, State: row.State, Connected: row.Connected,
		Filters: len(c.wants.fullSet()), EventsReceived: c.counts.received(), EventsStored: row.EventsStored,
		LastError: row.LastError, CoolingUntil: row.CoolingUntil, Failures: row.Failures, NextRetry: row.NextRetry,
		Refresh: row.Refresh,
	}
	if st, ok := c.session.LiveStats(); ok {
		r.Filters, r.Subscriptions = st.Filters, st.Reqs
	}
	return r
}
