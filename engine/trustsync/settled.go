package trustsync

import (
	"cmp"
	"context"
	"slices"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// A pass settles when every relay answered every family it ran and each of
// those runs was swept: the next pass of the same day, over the same trust
// data and settings, asks each relay one window probe per family and
// nothing else when no relay holds an event new to us. Settled keeps those
// windows, so that such a pass can be made without the frontier (PassSettled):
// at 300,000 people, loading the graph and walking it again was 1.8 s of a
// 1.9 s `sync --once` that found nothing new, where `strfry sync` between two
// relays holding the same events takes 0.1 s (issue 26).

// Settled is what a settled pass leaves for the next: its UTC day and the
// window probe of each family it ran, on each relay.
type Settled struct {
	Day     int64           `json:"day"`
	Windows []SettledWindow `json:"windows"`
}

// SettledWindow is one family's window probe on one relay.
type SettledWindow struct {
	Relay string `json:"relay"`
	Scope string `json:"scope"`
	Since int64  `json:"since"` // unix seconds: the sweep's check less lateArrival
	// Outsiders are the window's events of people outside the network that
	// the pass fetched and did not keep: the relay holds them, and they are
	// not new (outsidersSeen).
	Outsiders []store.Stamp `json:"outsiders,omitempty"`
}

// settledOutsidersMax bounds the outsiders a window keeps; a pass that saw
// more in one window does not settle (the record is rewritten at every pass).
const settledOutsidersMax = 1000

// settled is the pass's Settled, nil when it did not settle: a relay
// failed or was skipped, or a family's run was not swept on some relay.
func (p *pass) settled() *Settled {
	if len(p.conns) == 0 {
		return nil
	}
	for _, pc := range p.conns {
		if p.relayFailure(pc) != nil {
			return nil
		}
	}
	p.sweeps.mu.Lock()
	defer p.sweeps.mu.Unlock()
	s := &Settled{Day: utcDay(p.start.Unix())}
	for scope, runs := range p.sweeps.runs {
		f := familyOf(scope)
		if f == nil {
			return nil
		}
		for _, pc := range p.conns {
			swept := p.sweeps.swept[sweptAt{pc.link.URL(), scope}]
			if swept == nil || len(swept.sums) != runs {
				return nil
			}
			since := *p.window(f, swept.checked).Since
			outsiders := p.r.outsiders.seen(pc.link.URL(), scope, since, nil)
			if len(outsiders) > settledOutsidersMax {
				return nil
			}
			w := SettledWindow{Relay: pc.link.URL(), Scope: scope, Since: int64(since)}
			for _, o := range outsiders {
				w.Outsiders = append(w.Outsiders, o.Stamp)
			}
			slices.SortFunc(w.Outsiders, func(a, b store.Stamp) int { return cmp.Compare(a.ID, b.ID) })
			s.Windows = append(s.Windows, w)
		}
	}
	slices.SortFunc(s.Windows, func(a, b SettledWindow) int {
		return cmp.Or(cmp.Compare(a.Relay, b.Relay), cmp.Compare(a.Scope, b.Scope))
	})
	return s
}

// familyOf is the family whose cursor scope is scope, nil for none.
func familyOf(scope string) *family {
	for _, f := range []*family{&trustFamily, &ratingsFamily, &discoveryFamily, &claimsFamily} {
		if f.scope == scope {
			return f
		}
	}
	return nil
}

// PassSettled makes the manual pass after a settled one (the last pass,
// Config.LastPass) without the frontier, when the caller knows that the
// trust data and the settings it walked are as that pass left them and no
// window of a hop or a hint opened or closed since: it asks each relay the
// settled window probes, and when none holds an event we lack, the pass is
// that one again (its coverage, its windows), recorded now. It reports
// false, having recorded nothing, when the last pass did not settle, it was
// of another UTC day (the daily full refresh is due), the relays changed,
// or a relay failed (lately or now) or holds something new: a whole pass
// must run.
func (r *Runner) PassSettled(ctx context.Context) (bool, error) {
	last := r.cfg.LastPass
	if last == nil || last.Settled == nil || last.Settled.Day != utcDay(r.cfg.Clock.Now().Unix()) {
		return false, nil
	}
	urls, err := r.cfg.Store.Relays()
	if err != nil {
		return false, err
	}
	windowed := map[string]bool{}
	for _, w := range last.Settled.Windows {
		windowed[w.Relay] = true
	}
	if len(urls) != len(windowed) || slices.ContainsFunc(urls, func(u string) bool { return !windowed[u] }) {
		return false, nil
	}
	// a relay failing lately is left to the whole pass, which tries it once:
	// a failure here would count twice in its health
	if slices.ContainsFunc(urls, func(u string) bool { return r.links.Get(u).Health().State != status.HealthHealthy }) {
		return false, nil
	}
	r.passMu.Lock()
	defer r.passMu.Unlock()
	r.trackRelays(urls)
	p := newPass(r, true)
	walked := make(chan struct{})
	released := p.connect(ctx, urls, walked)
	nothingNew := p.nothingNew(ctx, last.Settled.Windows)
	close(walked)
	released.Wait()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if !nothingNew {
		return false, nil
	}
	r.metrics.passDone(r.cfg.Clock.Now().Sub(p.start))
	r.passFinished(last.Coverage, nil, last.Settled)
	return true, nil
}

// nothingNew reports whether every window probe was answered and found
// nothing we lack, the relays asked in parallel.
func (p *pass) nothingNew(ctx context.Context, windows []SettledWindow) bool {
	results := make(chan bool, len(p.conns))
	for _, pc := range p.conns {
		go func() {
			results <- pc.conn != nil && p.relayFailure(pc) == nil && p.windowsEmpty(ctx, pc, windows)
		}()
	}
	all := true
	for range p.conns {
		all = <-results && all
	}
	return all
}

// windowsEmpty asks pc's relay its settled windows, one after another, and
// reports whether each was reconciled with nothing we lack.
func (p *pass) windowsEmpty(ctx context.Context, pc *passConn, windows []SettledWindow) bool {
	for _, w := range windows {
		if w.Relay != pc.link.URL() {
			continue
		}
		f := familyOf(w.Scope)
		if f == nil {
			return false
		}
		outsiders := make([]store.AuthoredStamp, len(w.Outsiders))
		for i, o := range w.Outsiders {
			outsiders[i].Stamp = o
		}
		rec, err := p.reconcileWindow(ctx, pc, windowSince(f, nostr.Timestamp(w.Since)), outsiders)
		if err != nil || len(rec.Need) > 0 {
			return false
		}
	}
	return true
}
