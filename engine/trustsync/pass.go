package trustsync

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// errCapReached stops a family once its event cap is used up.
var errCapReached = errors.New("event cap reached")

// pass is one bounded frontier pass over every relay (SPEC §6.2-6.4).
type pass struct {
	r      *Runner
	manual bool  // a user asked: relays in backoff are tried, deferred retries too
	floor  int64 // lowest since for incremental batches (live reconnect), 0 = none
	gap    bool  // a live catch-up after a drop: events count as gap events
	giving bool  // a newcomers fetch while live: completed batches are recorded (newcomers.give)
	limits settings.Limits
	start  time.Time

	conns  []*passConn
	sweeps passSweeps // the sweeps of this pass's runs, per relay and family

	seenMu sync.Mutex
	handed handedIDs // event ids handed to the sink in this pass

	// progress figures, read by Runner.Status while the pass runs
	events   atomic.Int64 // events handed to ingest
	stored   atomic.Int64 // of those, new to us: the sum of this pass's share of each relay's stored count
	keysDone atomic.Int64 // keys whose batch ended, every family and relay
	ahead    atomic.Int64 // keys of families still to come that the walk knows of, every relay

	mu      sync.Mutex
	reasons map[string]bool
	counts  map[string]int             // events admitted per family scope
	authors map[string]int             // events admitted per author, perAuthor families
	cut     map[string]map[string]bool // cap reason -> keys left unfetched
}

// passConn is one relay's connection during a pass.
type passConn struct {
	link    *relay.Link
	conn    *relay.Conn
	failure error // set once the relay failed; later batches are skipped

	mu          sync.Mutex
	pending     []store.Cursor // cursor writes not yet saved
	reconciling chan struct{}  // a token per reconciled batch reading its held events or reconciling

	refresh relay.RefreshTally // reconciliations of this pass, for status

	// batches of the current family that ended without completing (failed,
	// capped, or skipped after the relay failed): a run with any is no sweep
	unfinished atomic.Int64
}

// reconcileSlots bounds the batches reconciling at once on the connection
// to what it runs (relay.MaxReconcilesInFlight), so batches waiting for
// their turn do not hold their held events in memory meanwhile.
func (pc *passConn) reconcileSlots() chan struct{} {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.reconciling == nil {
		pc.reconciling = make(chan struct{}, relay.MaxReconcilesInFlight)
	}
	return pc.reconciling
}

// cursorFlush is how many cursor writes are grouped in one transaction. A
// cursor saved late is safe (its events are already committed; at worst
// they are fetched again), and grouping spares a disk sync per batch.
const cursorFlush = 1000

// saveCursors queues cursor writes and saves them once enough are queued,
// or now when flush is set.
func (pc *passConn) saveCursors(st Store, cs []store.Cursor, flush bool) error {
	pc.mu.Lock()
	pc.pending = append(pc.pending, cs...)
	var out []store.Cursor
	if flush || len(pc.pending) >= cursorFlush {
		out, pc.pending = pc.pending, nil
	}
	pc.mu.Unlock()
	if len(out) == 0 {
		return nil
	}
	return st.SaveCursors(out)
}

func newPass(r *Runner, manual bool) *pass {
	return &pass{
		r: r, manual: manual, limits: r.current().Limits, start: r.cfg.Clock.Now(),
		reasons: map[string]bool{}, counts: map[string]int{}, authors: map[string]int{}, cut: map[string]map[string]bool{},
	}
}

// Pass runs one frontier pass now. manual passes ignore health backoff and
// retry delays (the user asked for them).
func (r *Runner) Pass(ctx context.Context, manual bool) (status.Coverage, error) {
	r.passMu.Lock()
	defer r.passMu.Unlock()
	p := newPass(r, manual)
	r.newcomers.restart()
	r.mu.Lock()
	r.st.State, r.running = status.StateRunning, p
	r.mu.Unlock()
	cov, err := p.run(ctx)
	elapsed := r.cfg.Clock.Now().Sub(p.start)
	r.metrics.passDone(elapsed)
	var settled *Settled
	if err == nil {
		settled = p.settled()
	}
	r.passFinished(cov, err, settled)
	return cov, err
}

func (p *pass) run(ctx context.Context) (status.Coverage, error) {
	urls, err := p.r.cfg.Store.Relays()
	if err != nil {
		return status.Coverage{}, err
	}
	p.r.trackRelays(urls)
	if len(urls) == 0 {
		return status.NewCoverage(status.ReasonNoRelays), nil
	}
	walked := make(chan struct{})
	released := p.connect(ctx, urls, walked)
	err = p.walk(ctx)
	close(walked)
	released.Wait()
	if err != nil {
		return status.Coverage{}, err
	}
	truncs := p.eventCaps()
	if len(truncs) > 0 {
		p.reasons[status.ReasonFrontierTruncated] = true
	}
	p.r.setEventCaps(truncs)
	for _, pc := range p.conns {
		if pc.failure != nil {
			p.reasons[status.RelayFailed(pc.link.URL())] = true
		}
	}
	return status.NewCoverage(slices.Collect(maps.Keys(p.reasons))...), nil
}

// connect opens every relay whose health allows an attempt (all of them on a
// manual pass), in parallel, each through the relay's connection lifecycle
// (relay.Links.Use), which holds it until walked is closed. It returns once
// every attempt connected or failed; released is done once every relay's
// connection is released and its state set.
func (p *pass) connect(ctx context.Context, urls []string, walked <-chan struct{}) (released *sync.WaitGroup) {
	released = &sync.WaitGroup{}
	var attempted sync.WaitGroup
	for _, url := range urls {
		link := p.r.links.Get(url)
		pc := &passConn{link: link}
		p.conns = append(p.conns, pc)
		h := link.Health()
		if !p.manual && !h.Due(p.start) {
			pc.failure = fmt.Errorf("in %s until %s", h.State, time.Unix(h.NextRetryAt, 0).UTC().Format(time.RFC3339))
			released.Go(func() {
				<-walked
				p.r.setRelayState(url, status.StateError)
			})
			continue
		}
		attempted.Add(1)
		var once sync.Once
		released.Go(func() {
			p.r.setRelayState(url, status.StateConnecting)
			connected, err := p.r.links.Use(ctx, link, func(ctx context.Context, conn *relay.Conn) error {
				pc.conn = conn
				p.r.setRelayState(url, status.StateRunning)
				once.Do(attempted.Done)
				<-walked
				// a full refresh of held events; first fetches are paged and do not count
				if f, offered := pc.refresh.Figures(); offered {
					link.NoteRefresh(f)
				}
				return p.relayFailure(pc)
			})
			if !connected {
				pc.failure = err
				once.Do(attempted.Done)
			}
			state := status.StateComplete
			if p.relayFailure(pc) != nil {
				state = status.StateError
			}
			p.r.setRelayState(url, state)
		})
	}
	attempted.Wait()
	return released
}

// walk fetches trust level by level while the frontier grows, then X-subject
// discovery and identity claims (which can bind X accounts and so grow the
// frontier again), and finally the ratings of the whole frontier.
func (p *pass) walk(ctx context.Context) error {
	// the keys of each family fetched so far, sorted: the walk hands fresh
	// the whole frontier at each level, and sorted sets are merged in one
	// sweep each (a map of 300,000 keys built at every pass took 0.3 s)
	fetched := map[*family][]string{}
	fresh := func(f *family, keys []string) []string {
		out := sortedMinus(f.normalizeKeys(keys), fetched[f])
		fetched[f] = sortedUnion(fetched[f], out)
		return out
	}
	frontier := p.r.cfg.Frontier
	// start from the roots as they are now, not from the last debounced walk
	if err := frontier.Refresh(ctx); err != nil {
		return err
	}
	for {
		// what the step starts from: with nothing stored and the frontier as
		// it was, the next step would find nothing (it reads the hints of
		// every X account and the whole frontier again: 0.4 s at 300,000 people)
		changed, stored := frontier.Changed(), p.stored.Load()
		for {
			grew := frontier.Changed()
			authors := frontier.Authors()
			todo := fresh(&trustFamily, authors)
			if len(todo) == 0 {
				break
			}
			p.expect(len(authors)) // their ratings, after the walk
			if err := p.fetch(ctx, &trustFamily, todo); err != nil {
				return err
			}
			if err := frontier.Refresh(ctx); err != nil {
				return err
			}
			if !isClosed(grew) {
				break // the same authors: none to fetch
			}
		}
		subjects := fresh(&discoveryFamily, frontier.DiscoverySubjects())
		refresh, err := p.dueToday(&claimsFamily, frontier.HintedPubkeys())
		if err != nil {
			return err
		}
		claims := fresh(&claimsFamily, append(frontier.ClaimCandidates(), refresh...))
		if len(subjects) == 0 && len(claims) == 0 {
			break
		}
		if err := p.fetch(ctx, &discoveryFamily, subjects); err != nil {
			return err
		}
		if err := p.fetch(ctx, &claimsFamily, claims); err != nil {
			return err
		}
		if len(claims) > 0 && p.anyRelayLive() {
			frontier.ClaimsFetched(claims)
		}
		if err := frontier.Refresh(ctx); err != nil {
			return err
		}
		if len(claims) == 0 && p.stored.Load() == stored && !isClosed(changed) {
			break
		}
	}
	for f, keys := range fetched {
		if err := p.recordWhole(f, keys); err != nil {
			return err
		}
	}
	p.expect(0)
	return p.fetch(ctx, &ratingsFamily, ratingsFamily.normalizeKeys(frontier.Authors()))
}

// isClosed reports whether ch is closed (a frontier's Changed fired).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// expect records that families after the current one will ask for about
// keys keys of every usable relay (for the time left).
func (p *pass) expect(keys int) {
	relays := 0
	for _, pc := range p.conns {
		if p.relayFailure(pc) == nil {
			relays++
		}
	}
	p.ahead.Store(int64(keys * relays))
}

// progress fills in the pass's figures at now: events and their rate, and
// the time left for the keys of the current family still to be asked
// (cur) and of the families after it, at the pace of the keys done so far.
func (p *pass) progress(cur status.Progress, now time.Time) status.Progress {
	elapsed := now.Sub(p.start).Seconds()
	cur.Events, cur.Stored = p.events.Load(), p.stored.Load()
	if elapsed <= 0 {
		return cur
	}
	cur.EventsPerSecond = float64(cur.Events) / elapsed
	if done := p.keysDone.Load(); done > 0 {
		left := max(cur.Total-cur.Done, 0) + int(p.ahead.Load())
		cur.SecondsLeft = int64(math.Ceil(float64(left) * elapsed / float64(done)))
	}
	return cur
}

// dueToday are the keys whose f cursor on some usable relay is missing or
// from an earlier UTC day: what the daily full refresh still has to fetch.
// A relay on which none is due, and none in retry state, records the keys
// as swept, and is not read again today.
func (p *pass) dueToday(f *family, keys []string) ([]string, error) {
	keys = f.normalizeKeys(keys)
	if len(keys) == 0 {
		return nil, nil
	}
	st := p.r.cfg.Store
	today, sum := utcDay(p.start.Unix()), store.SumKeys(keys)
	due := map[string]bool{}
	for _, pc := range p.conns {
		if pc.failure != nil {
			continue
		}
		url := pc.link.URL()
		_, swept, err := st.Sweep(url, f.scope, sum, today)
		if err != nil {
			return nil, err
		}
		if swept {
			continue
		}
		cs, err := st.Cursors(url, f.scope, keys)
		if err != nil {
			return nil, err
		}
		settled := true
		for _, k := range keys {
			c, ok := cs[k]
			fetchedToday := ok && utcDay(c.LastEoseAt) == today
			if !fetchedToday {
				due[k] = true
			}
			settled = settled && fetchedToday && !c.Retrying()
		}
		if settled {
			if err := st.SaveSweep(sweptBy(url, f, sum, cs, p.start)); err != nil {
				return nil, err
			}
		}
	}
	return slices.Sorted(maps.Keys(due)), nil
}

// anyRelayLive reports whether at least one relay is still usable in this pass.
func (p *pass) anyRelayLive() bool {
	for _, pc := range p.conns {
		if pc.failure == nil {
			return true
		}
	}
	return false
}

// fetch pulls one family for keys from every live relay in parallel.
func (p *pass) fetch(ctx context.Context, f *family, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	p.r.newcomers.attempt(f.scope, keys)
	p.sweeps.ran(f.scope)
	var live []*passConn
	for _, pc := range p.conns {
		if pc.failure == nil {
			live = append(live, pc)
		}
	}
	var done atomic.Int64
	total := len(keys) * len(live)
	p.r.setProgress(status.Progress{Pass: f.scope, Total: total})
	errs := make(chan error, len(live))
	var wg sync.WaitGroup
	for _, pc := range live {
		url := pc.link.URL()
		var relayDone atomic.Int64
		p.r.setRelayProgress(url, status.Progress{Pass: f.scope, Total: len(keys)})
		progress := func(n int) {
			p.keysDone.Add(int64(n))
			p.r.setRelayProgress(url, status.Progress{Pass: f.scope, Done: int(relayDone.Add(int64(n))), Total: len(keys)})
			p.r.setProgress(status.Progress{Pass: f.scope, Done: int(done.Add(int64(n))), Total: total})
		}
		wg.Go(func() { errs <- p.fetchRelay(ctx, pc, f, keys, progress) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fetchRelay runs a family's batches on one relay, as many REQs at a time
// as the relay allows (relay.Conn.ReqsInFlight; Parallel when it says nothing). It
// returns an error only for what ends the pass (sink or store failure,
// cancellation); relay failures are recorded on pc.
//
// Keys swept today (store.Sweep) are asked with one window probe, without
// reading their cursors; others are planned from their cursors, and a run
// in which every key completes is recorded as a sweep, once its cursors are
// saved.
func (p *pass) fetchRelay(ctx context.Context, pc *passConn, f *family, keys []string, progress func(int)) error {
	if !slices.IsSorted(keys) { // the probe looks keys up by halving; a set's sum is of its sorted keys
		keys = slices.Sorted(slices.Values(keys))
	}
	sum := store.SumKeys(keys)
	pc.unfinished.Store(0)
	swept, fatal := p.fetchSwept(ctx, pc, f, keys, sum, progress)
	var sweep *store.Sweep
	if swept == nil && fatal == nil {
		sweep, fatal = p.fetchByCursor(ctx, pc, f, keys, sum, progress)
	}
	if err := pc.saveCursors(p.r.cfg.Store, nil, true); err != nil && fatal == nil {
		fatal = err
	}
	if fatal == nil {
		fatal = ctx.Err()
	}
	if fatal != nil || pc.unfinished.Load() != 0 || p.relayFailure(pc) != nil {
		return fatal
	}
	switch {
	case sweep != nil:
		if fatal = p.r.cfg.Store.SaveSweep(*sweep); fatal == nil {
			p.sweeps.note(*sweep)
		}
	case swept != nil:
		p.sweeps.note(*swept) // still true: the keys its probe named completed again
	}
	return fatal
}

// fetchByCursor plans keys from their cursors: keys fetched from the relay
// earlier today are asked with a window probe, the others by batch. It
// returns the sweep to record when no key was deferred (fetchRelay records
// it only if every batch also completed).
func (p *pass) fetchByCursor(ctx context.Context, pc *passConn, f *family, keys []string, sum store.KeysSum, progress func(int)) (*store.Sweep, error) {
	url := pc.link.URL()
	cursors, err := p.r.cfg.Store.Cursors(url, f.scope, keys)
	if err != nil {
		return nil, err
	}
	p.r.newcomers.read(f.scope, completedKeys(cursors))
	batches, deferred := plan(keys, cursors, p.start, p.manual, p.floor, pc.link.NIP77() != relay.NIP77Unsupported)
	if len(deferred) > 0 {
		p.reason(status.RelayFailed(url))
		progress(len(deferred))
	}
	// keys with nothing to reconcile from a since go first: what they bring
	// is then held when the window probe reads what is new
	probed, batches := probeable(batches, cursors)
	var sweep *store.Sweep
	if len(deferred) == 0 {
		sw := sweptBy(url, f, sum, cursors, p.start)
		sweep = &sw
	}
	if err := p.runBatches(ctx, pc, f, batches, cursors, progress); err != nil || len(probed) == 0 {
		return sweep, err
	}
	probedKeys, checked := probeOf(probed, cursors)
	changed, probeMade, err := p.probeWindow(ctx, pc, f, probedKeys, checked, progress)
	if err != nil {
		return nil, err
	}
	if probeMade {
		probed, _ = plan(changed, cursors, p.start, true, p.floor, true)
	}
	return sweep, p.runBatches(ctx, pc, f, probed, cursors, progress)
}

// completedKeys are the keys whose cursor reached EOSE at least once.
func completedKeys(cursors map[string]store.Cursor) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k, c := range cursors {
			if c.LastEoseAt != 0 && !yield(k) {
				return
			}
		}
	}
}

// runBatches runs batches on one relay, as many REQs at a time as it
// allows; it returns the first error that ends the pass.
func (p *pass) runBatches(ctx context.Context, pc *passConn, f *family, batches []batch, cursors map[string]store.Cursor, progress func(int)) error {
	work := make(chan batch)
	var fatal error
	var fatalOnce sync.Once
	var wg sync.WaitGroup
	for range pc.conn.ReqsInFlight(p.r.cfg.Parallel) {
		wg.Go(func() {
			for b := range work {
				if err := p.runBatch(ctx, pc, f, b, cursors); err != nil {
					fatalOnce.Do(func() { fatal = err })
				}
				progress(len(b.keys))
			}
		})
	}
	for _, b := range batches {
		if ctx.Err() != nil {
			break
		}
		work <- b
	}
	close(work)
	wg.Wait()
	return fatal
}

// runBatch fetches one batch and moves its cursors: forward after EOSE on
// an unsaturated final page (or a reconciliation and the fetch of what it
// found missing), retry state otherwise. A batch to be reconciled that
// cannot be is paged BatchSize keys at a time.
func (p *pass) runBatch(ctx context.Context, pc *passConn, f *family, b batch, cursors map[string]store.Cursor) error {
	if p.relayFailed(pc) || p.capped(f, b.keys) {
		pc.unfinished.Add(1)
		return nil
	}
	if b.reconcile {
		if done, err := p.fetchBatch(ctx, pc, f, b, cursors, true); done || err != nil {
			return err
		}
		parts, _ := plan(b.keys, cursors, p.start, true, p.floor, false)
		for _, part := range parts {
			if err := p.runBatch(ctx, pc, f, part, cursors); err != nil {
				return err
			}
		}
		return nil
	}
	if done, err := p.fetchBatch(ctx, pc, f, b, cursors, false); done || err != nil {
		return err
	}
	// saturated: its keys hold more than one REQ pages, each half maybe not
	// (what the pages brought is not handed to the sink twice)
	half := len(b.keys) / 2
	for _, part := range [][]string{b.keys[:half], b.keys[half:]} {
		if err := p.runBatch(ctx, pc, f, batch{keys: part, since: b.since}, cursors); err != nil {
			return err
		}
	}
	return nil
}

// fetchBatch is runBatch's one filter. With reconcileOnly it asks nothing
// when the batch cannot be reconciled and reports done false; a batch
// without it is reconciled when it is a full fetch of what we hold, else
// paged. A paged batch that saturates (past the relay package's page limit) is
// reconciled, which has no page limit, where the relay does NIP-77; else a
// batch of several keys reports done false, to be asked in parts.
func (p *pass) fetchBatch(ctx context.Context, pc *passConn, f *family, b batch, cursors map[string]store.Cursor, reconcileOnly bool) (done bool, err error) {
	url := pc.link.URL()
	filter := f.filter(b.keys)
	filter.Since = b.since
	reqStart := p.r.cfg.Clock.Now()
	bp := p.newBatchPages(ctx, pc, f)
	notReconciled := false
	err = p.retryTimeouts(ctx, func() error {
		if reconcileOnly || b.since == nil {
			err := p.reconcile(ctx, pc, f, filter, bp.held, bp.add, reconcileOnly)
			if !errors.Is(err, relay.ErrNotReconciled) && !relay.IsReconcileRefused(err) {
				return err
			}
			if reconcileOnly {
				notReconciled = true
				return nil
			}
		}
		st, err := pc.conn.Fetch(ctx, filter, bp.add)
		pc.link.Fetched(st)
		if !errors.Is(err, relay.ErrSaturated) || reconcileOnly {
			return err
		}
		// what the pages brought is then held, and not fetched again
		if werr := bp.pages.wait(); werr != nil {
			return werr
		}
		rerr := p.reconcile(ctx, pc, f, filter, bp.held, bp.add, true)
		if errors.Is(rerr, relay.ErrNotReconciled) || relay.IsReconcileRefused(rerr) {
			return err
		}
		return rerr
	})
	sinkErr := bp.pages.wait()
	now := p.r.cfg.Clock.Now()
	switch {
	case sinkErr != nil:
		return true, fmt.Errorf("ingest from %s: %w", url, sinkErr)
	case ctx.Err() != nil:
		return true, ctx.Err()
	case notReconciled:
		return false, nil
	case errors.Is(err, errCapReached):
		p.capped(f, b.keys)
		pc.unfinished.Add(1)
		return true, nil
	case errors.Is(err, relay.ErrSaturated) && len(b.keys) > 1:
		p.r.cfg.Log.Info("sync batch saturated; asking its keys in halves", "relay", url, "family", f.scope, "keys", len(b.keys))
		return false, nil
	case err != nil:
		p.r.cfg.Log.Warn("sync batch failed; its cursors stay and it is retried later",
			"relay", url, "family", f.scope, "keys", len(b.keys), "err", err)
		if relay.ConnectionError(err) {
			p.failRelay(pc, err)
		}
		p.reason(status.RelayFailed(url))
		pc.unfinished.Add(1)
		return true, pc.saveCursors(p.r.cfg.Store, failed(url, f.scope, b.keys, cursors, now, err), false)
	}
	if p.giving {
		p.r.newcomers.give(url, f.scope, b.keys, reqStart)
	}
	return true, pc.saveCursors(p.r.cfg.Store, completed(url, f.scope, b.keys, cursors, bp.seen, reqStart, now), false)
}

// batchPages hands what one batch (or window probe) fetched to the sink: it
// notes each key's newest event (the batch's cursors), applies the family's
// caps, and leaves out what a reconciliation found already held.
type batchPages struct {
	p     *pass
	f     *family
	url   string
	pages *pageIngester
	seen  newestSeen
	held  map[string]bool // reconciled: already stored, counted toward caps as paging would, not ingested again
}

func (p *pass) newBatchPages(ctx context.Context, pc *passConn, f *family) *batchPages {
	return &batchPages{p: p, f: f, url: pc.link.URL(), pages: newPageIngester(ctx, p.r.cfg.Sink, pc.link, &p.stored),
		seen: newestSeen{}, held: map[string]bool{}}
}

// add takes one page; errCapReached says the family's cap cut it.
func (bp *batchPages) add(evs []*nostr.Event) error {
	p := bp.p
	bp.seen.add(bp.f, evs)
	fresh, again, capErr := p.admit(bp.f, evs)
	isHeld := func(ev *nostr.Event) bool { return bp.held[ev.ID] }
	fresh, again = slices.DeleteFunc(fresh, isHeld), slices.DeleteFunc(again, isHeld)
	if len(fresh)+len(again) > 0 {
		if err := bp.pages.add(append(fresh, again...)); err != nil {
			return err
		}
	}
	if len(fresh) > 0 {
		p.events.Add(int64(len(fresh)))
		rc := p.r.metrics.relay(bp.url)
		if p.gap {
			rc.gapFill.Add(int64(len(fresh)))
		} else {
			rc.eventsPass.Add(int64(len(fresh)))
		}
	}
	return capErr
}

// eventCaps are the event caps that cut this pass, with how many keys each.
func (p *pass) eventCaps() []status.Truncation {
	var truncs []status.Truncation
	for _, reason := range []string{status.ReasonMaxEvents, status.ReasonMaxEventsPerAuthor, status.ReasonMaxRatingEvents, status.ReasonMaxDiscoveryEvents} {
		if keys, ok := p.cut[reason]; ok {
			truncs = append(truncs, status.Truncation{Reason: reason, Cut: len(keys)})
		}
	}
	return truncs
}

// admit applies the family's event cap to the events not handed to the
// sink before in this pass (by another relay, or another family): fresh
// are those it keeps. again are the ones that may have been handed before
// (handedIDs), to be handed on uncounted: the sink drops those it holds.
func (p *pass) admit(f *family, evs []*nostr.Event) (fresh, again []*nostr.Event, err error) {
	p.seenMu.Lock()
	out := evs[:0:0]
	for _, ev := range evs {
		var id [32]byte
		if n, err := hex.Decode(id[:], []byte(ev.ID)); err != nil || n != 32 || p.handed.add(&id) {
			out = append(out, ev) // a malformed id too: the sink rejects it, naming the rule
		} else {
			again = append(again, ev)
		}
	}
	p.seenMu.Unlock()
	if f.cap == nil {
		return out, again, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f.perAuthor {
		out = p.keepPerAuthor(out)
	}
	room := max(f.cap(p.limits)-p.counts[f.scope], 0)
	if len(out) > room {
		p.counts[f.scope] += room
		return out[:room], nil, errCapReached // the cut keys are fetched again next pass
	}
	p.counts[f.scope] += len(out)
	return out, again, nil
}

// keepPerAuthor drops the events of authors who reached perAuthorCap in this
// pass (relays send newest first, so the newest are kept) and records them as
// cut. p.mu is held.
func (p *pass) keepPerAuthor(evs []*nostr.Event) []*nostr.Event {
	limit := perAuthorCap(p.limits)
	out := evs[:0]
	for _, ev := range evs {
		if p.authors[ev.PubKey] >= limit {
			p.cutKeys(status.ReasonMaxEventsPerAuthor, ev.PubKey)
			continue
		}
		p.authors[ev.PubKey]++
		out = append(out, ev)
	}
	return out
}

// cutKeys records keys as cut by reason. p.mu is held.
func (p *pass) cutKeys(reason string, keys ...string) {
	if p.cut[reason] == nil {
		p.cut[reason] = map[string]bool{}
	}
	for _, k := range keys {
		p.cut[reason][k] = true
	}
}

// capped reports whether f's event cap is used up, and if so records keys
// as cut by it.
func (p *pass) capped(f *family, keys []string) bool {
	if f.cap == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.counts[f.scope] < f.cap(p.limits) {
		return false
	}
	p.cutKeys(f.capReason, keys...)
	return true
}

func (p *pass) reason(r string) {
	p.mu.Lock()
	p.reasons[r] = true
	p.mu.Unlock()
}

func (p *pass) relayFailed(pc *passConn) bool { return p.relayFailure(pc) != nil }

func (p *pass) relayFailure(pc *passConn) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pc.failure
}

func (p *pass) failRelay(pc *passConn, err error) {
	p.mu.Lock()
	if pc.failure == nil {
		pc.failure = err
	}
	p.mu.Unlock()
}
