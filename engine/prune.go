package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// Removing events: pruning the trust events of people outside the network
// for a while, and deleting what a NIP-01 filter matches (strfry's delete
// --filter). Neither ever removes the roots' own events, an event an answer
// from the roots can use, or an event of a repository this server follows.

// RemovalReport is what a prune or a delete did, or would do in a dry run.
type RemovalReport struct {
	DryRun  bool  `json:"dryRun"`
	Matched int   `json:"matched"` // events the rule or filter selected
	Removed int   `json:"removed"` // of those, removed (in a dry run: would be)
	Bytes   int64 `json:"bytes"`   // the removed events' rows
	// Kept are the matched events left alone, by why.
	Kept KeptEvents `json:"kept"`
	// Prune only: the people whose events went, and those outside the
	// network for less than the days, whose events wait.
	Authors int `json:"authors,omitempty"`
	Waiting int `json:"waiting,omitempty"`
	Days    int `json:"days,omitempty"`
	// The database file before and after, the free pages given back to the
	// disk, and the file's auto-vacuum mode: "none" keeps freed pages in the
	// file for new events until `db compact`.
	FileBefore    int64  `json:"fileBefore"`
	FileAfter     int64  `json:"fileAfter"`
	PagesReleased int64  `json:"pagesReleased"`
	VacuumMode    string `json:"vacuumMode"`
}

// KeptEvents counts matched events that were not removed.
type KeptEvents struct {
	Roots        int `json:"roots"`        // the roots' own
	Answers      int `json:"answers"`      // by people answers from the roots reach
	Repositories int `json:"repositories"` // of repositories this server follows
}

// DefaultPruneDays is how long a person stays outside the network before
// `prune` removes their events when neither --days nor the automatic
// setting says: the extension's own store waits 30 days.
const DefaultPruneDays = 30

// ErrNoRoots refuses a prune with no roots: everyone would be outside.
var ErrNoRoots = errors.New("prune needs a root: with none, everyone is outside your network (add yours: dtp-personal roots add npub1…)")

// removeChunk is the events one removal transaction takes, with the heap
// update, between batches of the pipeline.
const removeChunk = 500

// protection is who the removals leave alone.
type protection struct {
	roots  map[string]bool // configured and live session roots
	reach  map[string]bool // everyone answers from the roots can use
	hinted map[string]bool // pubkeys hints of reached authors name: their 10011 binds X accounts
}

// protectedAuthors walks every active positive hop from the roots up to
// the hard cap on depth (5, any query's largest max degree), without the
// frontier's caps: whoever it reaches may speak in an answer from the
// roots. The frontier's authors (fetched) are included as well.
func (e *Engine) protectedAuthors() protection {
	fr := e.trust.frontier.Current()
	p := protection{roots: map[string]bool{}, reach: map[string]bool{}, hinted: map[string]bool{}}
	for _, r := range slices.Concat(fr.Roots, e.Settings().Roots) {
		p.roots[r], p.reach[r] = true, true
	}
	for _, a := range fr.Pubkeys() {
		p.reach[a] = true
	}
	now := time.Now().Unix()
	e.trust.heap.View(func(v heap.View) {
		// depthOf[n] is 1 + the depth n was reached at, 0 = not reached
		depthOf := make([]int8, v.NumNodes())
		var level []heap.NodeID
		for r := range p.roots {
			if n, ok := v.Pubkey(r); ok && depthOf[n] == 0 {
				depthOf[n] = 1
				level = append(level, n)
			}
		}
		// During level d, hints bind X accounts when their authors were
		// reached at depth d or nearer, as in the frontier walk: the
		// trusted authors stay the same through a level, so the level's
		// view keeps each account's binding (WithBindings). Read again at
		// every hop, a popular account's statements made this walk take
		// minutes of a core at 300,000 people, with commits waiting.
		depth := 0
		trusted := func(n heap.NodeID) bool { return depthOf[n] != 0 && int(depthOf[n]) <= depth+1 }
		var hops []heap.NodeID
		for ; depth < settings.MaxDepthHardCap && len(level) > 0; depth++ {
			lv := v.WithBindings()
			var next []heap.NodeID
			for _, n := range level {
				hops, _ = lv.Hops(n, now, trusted, hops[:0])
				for _, h := range hops {
					if depthOf[h] == 0 {
						depthOf[h] = int8(depth + 2)
						next = append(next, h)
					}
				}
			}
			level = next
		}
		for n, d := range depthOf {
			if d != 0 {
				p.reach[v.Text(heap.NodeID(n))] = true
			}
		}
		reached := func(n heap.NodeID) bool { return depthOf[n] != 0 }
		hinted, _ := v.HintedPubkeys(now, reached)
		for _, h := range hinted {
			p.hinted[h] = true
		}
	})
	return p
}

// keeps says why an event is left alone, "" when it may go.
func (p protection) keeps(ev *nostr.Event, repos interface{ Keeps(*nostr.Event) bool }) string {
	switch {
	case p.roots[ev.PubKey]:
		return "roots"
	case validation.IsTrustKind(ev.Kind) && (p.reach[ev.PubKey] || ev.Kind == validation.KindClaims && p.hinted[ev.PubKey]):
		return "answers"
	case !validation.IsTrustKind(ev.Kind) && repos.Keeps(ev):
		return "repositories"
	}
	return ""
}

func (k *KeptEvents) count(why string) {
	switch why {
	case "roots":
		k.Roots++
	case "answers":
		k.Answers++
	case "repositories":
		k.Repositories++
	}
}

// outsiders records who holds trust events outside the protection now
// (the clock of each starts when first seen outside) and returns since
// when each has been outside.
func (e *Engine) outsiders(ctx context.Context, p protection) (map[string]int64, error) {
	authors, err := e.store.TrustAuthors(ctx)
	if err != nil {
		return nil, err
	}
	outside := slices.DeleteFunc(authors, func(a string) bool { return p.reach[a] })
	return e.store.SetOutsiders(outside, time.Now().Unix())
}

// Prune removes the trust events (32009, 32014, 10011) of people outside
// the network the answers use for more than days (the removal waits for
// their clock, which starts when they are first seen outside), or in a dry
// run says what it would remove. Repository events are never pruned.
func (e *Engine) Prune(ctx context.Context, days int, dryRun bool) (RemovalReport, error) {
	if e.opts.ReadOnly {
		return RemovalReport{}, ErrReadOnly
	}
	if days < 0 {
		return RemovalReport{}, fmt.Errorf("invalid: days must not be negative, not %d", days)
	}
	if len(e.Settings().Roots) == 0 {
		return RemovalReport{}, ErrNoRoots
	}
	p := e.protectedAuthors()
	since, err := e.outsiders(ctx, p)
	if err != nil {
		return RemovalReport{}, err
	}
	r := RemovalReport{DryRun: dryRun, Days: days}
	cutoff := time.Now().Unix() - int64(days)*86400
	var due []string
	for a, at := range since {
		if at <= cutoff {
			due = append(due, a)
		} else {
			r.Waiting++
		}
	}
	slices.Sort(due)
	var ids []string
	pruned := map[string]bool{}
	for chunk := range slices.Chunk(due, 500) {
		f := nostr.Filter{Authors: chunk, Kinds: []int{validation.KindTrust, validation.KindRating, validation.KindClaims}}
		err := e.store.EachMatching(ctx, f, func(ev *nostr.Event, size int64) error {
			r.Matched++
			if why := p.keeps(ev, e.repos); why != "" { // a session root that arrived meanwhile
				r.Kept.count(why)
				return nil
			}
			ids = append(ids, ev.ID)
			r.Bytes += size
			pruned[ev.PubKey] = true
			return nil
		})
		if err != nil {
			return r, err
		}
	}
	r.Removed, r.Authors = len(ids), len(pruned)
	if dryRun {
		return r, e.fileFigures(ctx, &r, false)
	}
	if err := e.removeEvents(ctx, ids, &r); err != nil {
		return r, err
	}
	// their return fetches them in full (SPEC §5)
	if err := e.store.DeleteCursorsForAuthors(slices.Sorted(maps.Keys(pruned))); err != nil {
		e.log.Warn("forget the cursors of pruned authors", "err", err)
	}
	return r, nil
}

// DeleteMatching removes the events f matches (strfry's delete --filter),
// except those the protection keeps, or in a dry run says what it would
// remove. An empty filter is refused: it matches every event.
func (e *Engine) DeleteMatching(ctx context.Context, f nostr.Filter, dryRun bool) (RemovalReport, error) {
	if e.opts.ReadOnly {
		return RemovalReport{}, ErrReadOnly
	}
	f.Limit, f.LimitZero = 0, false
	if f.IDs == nil && f.Authors == nil && f.Kinds == nil && len(f.Tags) == 0 && f.Since == nil && f.Until == nil {
		return RemovalReport{}, errors.New("invalid: the filter is empty, which matches every event: name ids, authors, kinds, tags, since or until")
	}
	if f.Search != "" {
		return RemovalReport{}, errors.New("invalid: search is not supported in a delete filter")
	}
	p := e.protectedAuthors()
	r := RemovalReport{DryRun: dryRun}
	var ids []string
	err := e.store.EachMatching(ctx, f, func(ev *nostr.Event, size int64) error {
		r.Matched++
		if why := p.keeps(ev, e.repos); why != "" {
			r.Kept.count(why)
			return nil
		}
		ids = append(ids, ev.ID)
		r.Bytes += size
		return nil
	})
	if err != nil {
		return r, err
	}
	r.Removed = len(ids)
	if dryRun {
		return r, e.fileFigures(ctx, &r, false)
	}
	return r, e.removeEvents(ctx, ids, &r)
}

// removeEvents removes ids in chunks, each between two batches of the
// pipeline: the store, the heap (and through it the frontier and the
// resolver's walks, by the graph version) and repository sync's index
// learn it together. Then the freed pages go back to the disk.
func (e *Engine) removeEvents(ctx context.Context, ids []string, r *RemovalReport) error {
	if err := e.store.CheckpointNow(ctx); err != nil {
		return err
	}
	r.FileBefore = e.store.FileSize()
	for chunk := range slices.Chunk(ids, removeChunk) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		e.ingest.Exclusive(func() {
			var removed []*nostr.Event
			if removed, err = e.store.DeleteEvents(chunk); err != nil {
				return
			}
			if e.trust.heap.Remove(removed).HopsChanged {
				e.trust.frontier.Notify()
			}
			e.repos.Removed(removed)
		})
		if err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		e.notify()
	}
	return e.fileFigures(ctx, r, len(ids) > 0)
}

// fileFigures fills the report's file size and vacuum mode, giving the free
// pages back first when release is set.
func (e *Engine) fileFigures(ctx context.Context, r *RemovalReport, release bool) error {
	var err error
	if r.VacuumMode, err = e.store.VacuumMode(); err != nil {
		return err
	}
	if r.FileBefore == 0 {
		if err := e.store.CheckpointNow(ctx); err != nil {
			return err
		}
		r.FileBefore = e.store.FileSize()
	}
	if release {
		if r.PagesReleased, err = e.store.ReleaseFreePages(ctx); err != nil {
			return err
		}
	}
	r.FileAfter = e.store.FileSize()
	return nil
}

// Compact rewrites the database file, which gives back every free page and
// switches a file made before incremental auto-vacuum to it, so later
// removals shrink it without this. It blocks writes for its duration
// (store.Compact: about 30 s per GB).
func (e *Engine) Compact(ctx context.Context) (RemovalReport, error) {
	if e.opts.ReadOnly {
		return RemovalReport{}, ErrReadOnly
	}
	if err := e.store.CheckpointNow(ctx); err != nil {
		return RemovalReport{}, err
	}
	r := RemovalReport{FileBefore: e.store.FileSize()}
	var err error
	e.ingest.Exclusive(func() { err = e.store.Compact(ctx) })
	if err != nil {
		return r, err
	}
	return r, e.fileFigures(ctx, &r, false)
}

// pruneEvery spaces the automatic prune's rounds; the first comes a minute
// after the start.
const pruneEvery = time.Hour

// autoPrune keeps the outsiders' clocks running while the server runs and,
// when the setting asks for it, prunes those outside for more than its
// days. It never prunes under global-continuous ("subscribe all" keeps
// everyone on purpose) or with no roots.
func (e *Engine) autoPrune(ctx context.Context) {
	wait, every := time.Minute, pruneEvery
	if e.opts.PruneInterval > 0 {
		wait, every = e.opts.PruneInterval, e.opts.PruneInterval
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = every
		s := e.Settings()
		if len(s.Roots) == 0 {
			continue
		}
		if s.PruneAfterDays == 0 || s.Strategy == settings.GlobalContinuous {
			if _, err := e.outsiders(ctx, e.protectedAuthors()); err != nil && ctx.Err() == nil {
				e.log.Warn("record who is outside the network", "err", err)
			}
			continue
		}
		r, err := e.Prune(ctx, s.PruneAfterDays, false)
		switch {
		case err != nil && ctx.Err() == nil:
			e.log.Warn("automatic prune", "err", err)
		case r.Removed > 0:
			e.log.Info("pruned the events of people outside the network", "events", r.Removed, "people", r.Authors,
				"days", r.Days, "bytes", r.Bytes, "file_before", r.FileBefore, "file_after", r.FileAfter)
		}
	}
}

// maintenancePort serves the owner's removals over HTTP (server.Maintenance).
type maintenancePort struct{ e *Engine }

func (p maintenancePort) Prune(ctx context.Context, days int, dryRun bool) (any, error) {
	return p.e.Prune(ctx, days, dryRun)
}

func (p maintenancePort) Delete(ctx context.Context, f nostr.Filter, dryRun bool) (any, error) {
	return p.e.DeleteMatching(ctx, f, dryRun)
}

func (p maintenancePort) Compact(ctx context.Context) (any, error) { return p.e.Compact(ctx) }
