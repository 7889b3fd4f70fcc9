package trustsync

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/store"
)

// probeNeedMax is the most events a window probe fetches; a relay with more
// new events than that in the window is asked key by key, as without the
// probe. A day of 1 % of 300,000 people publishing (3,000 statements) fits;
// at 2,000 that refresh asked every key (24.8 s against 8.3 s with nothing
// new).
const probeNeedMax = 10_000

// lateArrival widens a window probe back past the last check: an event
// that reaches the relay up to this late (a client that was offline, a
// relay syncing from another) is still in the window. A window starts at
// the day's first check of its keys, so only an event dated before that,
// less lateArrival, and arriving after it waits for the next day's full
// refresh; a wider one would hold more of others' statements.
const lateArrival = time.Hour

// probeable splits off the batches a window probe can stand for: those
// reconciled from a since (keys fetched from the relay earlier today) whose
// keys carry no retry state; a key whose last fetch failed is asked again
// by its own batch, which clears that state.
func probeable(batches []batch, cursors map[string]store.Cursor) (probed, rest []batch) {
	for _, b := range batches {
		if b.since != nil && b.reconcile && !slices.ContainsFunc(b.keys, func(k string) bool { return cursors[k].Retrying() }) {
			probed = append(probed, b)
		} else {
			rest = append(rest, b)
		}
	}
	return probed, rest
}

// probeOf are the keys of the probed batches, sorted, and the earliest of
// their checks (last EOSE).
func probeOf(probed []batch, cursors map[string]store.Cursor) (keys []string, checked int64) {
	checked = math.MaxInt64
	for _, b := range probed {
		for _, k := range b.keys {
			keys = append(keys, k)
			checked = min(checked, cursors[k].LastEoseAt)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), checked
}

// probeWindow asks the relay once, with NIP-77, for the events of f's kinds
// created since keys (sorted) were checked (their earliest last EOSE, less
// lateArrival), whoever wrote them, and fetches those we lack. The ones
// naming one of keys are ingested as that key's batch would, and changed
// are those keys (to be asked by batch, which then finds the events held and
// moves their cursors); the other keys are done: nothing new reached the
// relay for them since. At 300,000 people a pass with nothing new asked 600
// batches per family, each reading an index page per person on both sides;
// the probe reads the window's few events.
//
// What it cannot see: an event created before the window that reached the
// relay after it. The daily full refresh asks every key again, and finds it.
//
// made is false, with no key done, when the probe cannot be made (the relay
// does not do NIP-77, too many new events, a failure): every key is then
// asked by batch. An error is returned only for what ends the pass.
func (p *pass) probeWindow(ctx context.Context, pc *passConn, f *family, keys []string, checked int64, progress func(int)) (changed []string, made bool, err error) {
	if p.giving || pc.link.NIP77() == relay.NIP77Unsupported {
		return nil, false, nil
	}
	probing := keySet(keys)
	window := p.window(f, checked)
	rec, err := p.reconcileWindow(ctx, pc, window, p.r.outsiders.seen(pc.link.URL(), f.scope, *window.Since, probing))
	if err != nil || len(rec.Need) > probeNeedMax {
		return nil, false, ctx.Err()
	}
	named := map[string]bool{}
	bp := p.newBatchPages(ctx, pc, f)
	st, err := pc.conn.FetchIDs(ctx, window, rec.Need, func(evs []*nostr.Event) error {
		var ours []*nostr.Event
		for _, ev := range evs {
			// another key's event (someone not in the frontier yet) is
			// left to that key's own fetch
			evKeys, ofKeys := f.keysOf(ev), false
			for _, k := range evKeys {
				if probing.has(k) {
					named[k], ofKeys = true, true
				}
			}
			if ofKeys {
				ours = append(ours, ev)
			} else {
				p.r.outsiders.add(pc.link.URL(), f.scope, ev, evKeys)
			}
		}
		if len(ours) == 0 {
			return nil
		}
		return bp.add(ours)
	})
	pc.link.Fetched(st)
	if sinkErr := bp.pages.wait(); sinkErr != nil {
		return nil, false, fmt.Errorf("ingest from %s: %w", pc.link.URL(), sinkErr)
	}
	if err != nil {
		return nil, false, ctx.Err() // a cut by a cap or a failure: every key is asked by batch
	}
	changed = slices.Sorted(maps.Keys(named))
	progress(len(keys) - len(changed))
	return changed, true, nil
}

// window is f's window probe from checked, a sweep's check.
func (p *pass) window(f *family, checked int64) nostr.Filter {
	return windowSince(f, nostr.Timestamp(max(checked-int64(lateArrival.Seconds()), p.floor, 0)))
}

// windowSince is a window probe of f's kinds created since since, whoever
// wrote them.
func windowSince(f *family, since nostr.Timestamp) nostr.Filter {
	return nostr.Filter{Kinds: f.filter(nil).Kinds, Since: &since}
}

// reconcileWindow reconciles a window probe with the relay over the events
// of it we hold and outsiders, outsiders' events fetched before and not
// kept: rec.Need are the relay's events in the window we lack.
func (p *pass) reconcileWindow(ctx context.Context, pc *passConn, window nostr.Filter, outsiders []store.AuthoredStamp) (relay.Reconciliation, error) {
	_, rec, err := relay.ReconcileHeld(ctx, pc.link, pc.conn, window, relay.HeldLimit{Max: wideHeldMax, Empty: true},
		func(max int) ([]store.AuthoredStamp, error) {
			held, err := p.r.cfg.Store.AuthoredStamps(ctx, window, max, false)
			return withoutHeld(append(held, outsiders...), len(held)), err
		}, store.StampPairs[store.AuthoredStamp], nil)
	return rec, err
}

// withoutHeld drops from stamps[held:] (outsiders' events) those among
// stamps[:held] (stored since: a key that joined the frontier named them),
// so that no event is offered twice.
func withoutHeld(stamps []store.AuthoredStamp, held int) []store.AuthoredStamp {
	if held == len(stamps) {
		return stamps
	}
	ids := make(map[string]bool, len(stamps)-held)
	for _, s := range stamps[held:] {
		ids[s.ID] = true
	}
	for _, s := range stamps[:held] {
		delete(ids, s.ID)
	}
	kept := slices.DeleteFunc(stamps[held:], func(s store.AuthoredStamp) bool { return !ids[s.ID] })
	return stamps[:held+len(kept)]
}

// keySet is a sorted set of keys.
type keySet []string

func (s keySet) has(k string) bool {
	_, found := slices.BinarySearch(s, k)
	return found
}

// outsidersSeen remembers, per relay and family, the events a window probe
// fetched that named none of its keys (statements of people outside the
// network): the next probe counts them as held, so a relay busy with others'
// statements sends each of them once, not at every pass. An event naming a
// key probed since is not counted: it is that key's now.
type outsidersSeen struct {
	mu     sync.Mutex
	events map[string]map[string]outsider // relay and scope → id
}

type outsider struct {
	createdAt nostr.Timestamp
	keys      []string
}

func outsidersKey(url, scope string) string { return url + " " + scope }

// outsidersMax bounds what is remembered per relay and family; past it a
// probe fetches the others again.
const outsidersMax = 4 * probeNeedMax

func (o *outsidersSeen) add(url, scope string, ev *nostr.Event, keys []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	at := outsidersKey(url, scope)
	if o.events == nil {
		o.events = map[string]map[string]outsider{}
	}
	if o.events[at] == nil {
		o.events[at] = map[string]outsider{}
	}
	if len(o.events[at]) < outsidersMax {
		o.events[at][ev.ID] = outsider{createdAt: ev.CreatedAt, keys: keys}
	}
}

// seen are the stamps of the remembered events created since since that
// name none of keys; older ones are forgotten (no window reaches them).
func (o *outsidersSeen) seen(url, scope string, since nostr.Timestamp, keys keySet) []store.AuthoredStamp {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []store.AuthoredStamp
	remembered := o.events[outsidersKey(url, scope)]
	for id, ev := range remembered {
		switch {
		case ev.createdAt < since:
			delete(remembered, id)
		case !slices.ContainsFunc(ev.keys, keys.has):
			out = append(out, store.AuthoredStamp{Stamp: store.Stamp{CreatedAt: ev.createdAt, ID: id}})
		}
	}
	return out
}
