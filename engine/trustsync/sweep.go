package trustsync

import (
	"context"
	"slices"
	"sync"
	"time"

	"dtp-personal/engine/store"
)

// fetchSwept fetches keys swept today on pc's relay with a window probe
// from the sweep's check, and runs batches for the keys the new events name.
// swept is nil, with nothing asked, when there is no sweep or the probe
// cannot be made: the caller then plans from the cursors.
func (p *pass) fetchSwept(ctx context.Context, pc *passConn, f *family, keys []string, sum store.KeysSum, progress func(int)) (swept *store.Sweep, err error) {
	url := pc.link.URL()
	sw, ok, err := p.r.cfg.Store.Sweep(url, f.scope, sum, utcDay(p.start.Unix()))
	if err != nil || !ok {
		return nil, err
	}
	// not made (a relay without NIP-77, a newcomers fetch while live, a
	// failure): nothing was asked
	changed, ok, err := p.probeWindow(ctx, pc, f, keys, sw.Checked, progress)
	if err != nil || !ok {
		return nil, err
	}
	p.r.newcomers.read(f.scope, slices.Values(keys))
	if len(changed) == 0 {
		return &sw, nil // (Cursors of no key would read every one)
	}
	cursors, err := p.r.cfg.Store.Cursors(url, f.scope, changed)
	if err != nil {
		return &sw, err
	}
	// a sweep holds no key in retry state: none is deferred
	batches, _ := plan(changed, cursors, p.start, true, p.floor, true)
	return &sw, p.runBatches(ctx, pc, f, batches, cursors, progress)
}

// sweptBy is the sweep of keys (sum) on url once every one completed today:
// checked is the earliest of today's checks among their cursors as read,
// or the pass's start (the checks it makes are later).
func sweptBy(url string, f *family, sum store.KeysSum, cursors map[string]store.Cursor, start time.Time) store.Sweep {
	today := utcDay(start.Unix())
	checked := start.Unix()
	for _, c := range cursors {
		if utcDay(c.LastEoseAt) == today {
			checked = min(checked, c.LastEoseAt)
		}
	}
	return store.Sweep{Relay: url, Scope: f.scope, Keys: sum, Day: today, Checked: checked}
}

// passSweeps are the sweeps of a pass's runs, per relay and family; a
// family fetched in several runs (the trust walk's levels) is recorded
// whole at the walk's end, the set the next pass starts from.
type passSweeps struct {
	mu    sync.Mutex
	runs  map[string]int // family scope → runs of it in the pass (fetches of some keys)
	swept map[sweptAt]*sweptRuns
}

type sweptAt struct{ url, scope string }

type sweptRuns struct {
	sums    []store.KeysSum
	checked int64 // the earliest among them
}

// ran counts a run of scope's keys on every live relay.
func (s *passSweeps) ran(scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[string]int{}
	}
	s.runs[scope]++
}

// note records that a run's keys are swept on its relay.
func (s *passSweeps) note(sw store.Sweep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.swept == nil {
		s.swept = map[sweptAt]*sweptRuns{}
	}
	at := sweptAt{sw.Relay, sw.Scope}
	runs := s.swept[at]
	if runs == nil {
		runs = &sweptRuns{checked: sw.Checked}
		s.swept[at] = runs
	}
	runs.checked = min(runs.checked, sw.Checked)
	runs.sums = append(runs.sums, sw.Keys)
}

// recordWhole records as one sweep, on each relay where every run of f in
// this pass was swept, the keys of all of them (fetched, sorted): what the
// next pass's first run of f asks when nothing changed. A relay that failed,
// or was skipped, in one run has fewer sweeps than runs and is left out; the
// store records the whole only while every run's sweep still holds.
func (p *pass) recordWhole(f *family, fetched []string) error {
	p.sweeps.mu.Lock()
	defer p.sweeps.mu.Unlock()
	runs := p.sweeps.runs[f.scope]
	if runs < 2 {
		return nil // its one run's sweep is the whole
	}
	var sum *store.KeysSum // summed once, and only where a relay qualifies
	for at, swept := range p.sweeps.swept {
		if at.scope != f.scope || len(swept.sums) != runs {
			continue
		}
		if sum == nil {
			s := store.SumKeys(fetched)
			sum = &s
		}
		whole := store.Sweep{Relay: at.url, Scope: at.scope, Keys: *sum, Day: utcDay(p.start.Unix()), Checked: swept.checked}
		if _, err := p.r.cfg.Store.SaveSweepOf(whole, swept.sums); err != nil {
			return err
		}
	}
	return nil
}
