package trustsync

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// Global live families: one cursor each, keyed by the empty author.
var (
	globalKey = func(*nostr.Event) []string { return []string{""} }

	globalTrust = family{eventKeys: globalKey, scope: "global-trust", filter: func([]string) nostr.Filter {
		return nostr.Filter{Kinds: []int{validation.KindTrust}}
	}}
	// Unlike the author-scoped ratings filter this keeps the spec's "#s":
	// with no authors strfry's tag index is the index that serves it, and
	// since bounds its walk to the x.com events of the window asked for.
	globalRatings = family{eventKeys: globalKey, scope: "global-ratings", filter: func([]string) nostr.Filter {
		return nostr.Filter{Kinds: []int{validation.KindRating}, Tags: nostr.TagMap{"s": {"x.com"}}}
	}}
	globalClaims = family{eventKeys: globalKey, scope: "global-claims", filter: func([]string) nostr.Filter {
		return nostr.Filter{Kinds: []int{validation.KindClaims}}
	}}
)

// live keeps subscriptions open on every relay, one relay.Session each
// (supervised one at a time: a relay added or removed leaves the others
// alone): for the frontier's authors (frontier-continuous) or for every
// kept event (global-continuous).
type live struct {
	r      *Runner
	global bool
	ctx    context.Context // the strategy's: the sessions run under it

	mu       sync.Mutex
	authors  []string
	stopped  bool // run ended: no session starts any more
	sessions relay.Supervisor[*relay.Session]
}

// newLive follows the frontier's authors as they are now; its sessions run
// under ctx, from run or a relay added meanwhile (setRelays).
func newLive(ctx context.Context, r *Runner, global bool) *live {
	return &live{r: r, global: global, ctx: ctx, authors: trustFamily.normalizeKeys(r.cfg.Frontier.Authors())}
}

// run keeps every relay live until ctx (newLive's) ends.
func (l *live) run() {
	ctx := l.ctx
	var wg sync.WaitGroup
	if !l.global {
		wg.Go(func() { l.watchFrontier(ctx, l.wakeAll) })
	}
	if relays := l.setRelays(); len(relays) > 0 {
		// with no relay there is nothing live to follow: the pass's "partial
		// (no-relays)" stays the state
		l.r.setState(status.StateLive)
	}
	<-ctx.Done()
	l.mu.Lock()
	l.stopped = true
	stopped := l.sessions.RemoveAll()
	l.mu.Unlock()
	stopped()
	wg.Wait()
}

// setRelays gives each configured relay a session and ends the others';
// the sessions of relays configured before and now go on untouched. It
// returns the relays.
func (l *live) setRelays() []string {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return nil
	}
	urls := l.r.relays() // under mu: of two calls, the later reads the later list
	ended := l.sessions.Set(l.ctx, urls, l.newSession)
	l.mu.Unlock()
	ended()
	return urls
}

func (l *live) newSession(url string) *relay.Session {
	return relay.NewSession(l.r.links, url, &liveRelay{l: l, url: url, rc: l.r.metrics.relay(url)},
		relay.SessionConfig{Sink: l.r.cfg.Sink, Live: l.r.cfg.Live})
}

// session is url's live session; false when l is nil (no live strategy)
// or url has none.
func (l *live) session(url string) (*relay.Session, bool) {
	if l == nil {
		return nil, false
	}
	return l.sessions.Get(url)
}

// wakeAll tells every session the frontier's authors changed.
func (l *live) wakeAll() {
	for _, s := range l.sessions.All() {
		s.Wake()
	}
}

// maxResubscribeWait bounds the trailing debounce: a frontier that keeps
// changing is still followed this long after its first change.
const maxResubscribeWait = 10 * time.Second

// watchFrontier publishes the frontier's authors once it has settled after a
// change, and calls changed when they differ from the last published.
func (l *live) watchFrontier(ctx context.Context, changed func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.r.cfg.Frontier.Changed():
		}
		if !l.settle(ctx) {
			return
		}
		next := trustFamily.normalizeKeys(l.r.cfg.Frontier.Authors())
		l.mu.Lock()
		moved := !slices.Equal(next, l.authors)
		if moved {
			l.authors = next
		}
		l.mu.Unlock()
		if moved {
			changed()
		}
	}
}

// settle is the trailing debounce, as the extension: it waits until the
// frontier stayed unchanged for Resubscribe (1.5 s), or maxResubscribeWait
// after the first change; false when ctx ended.
func (l *live) settle(ctx context.Context) bool {
	clock := l.r.cfg.Clock
	deadline := clock.After(maxResubscribeWait)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-deadline:
			return true
		case <-clock.After(l.r.cfg.Resubscribe):
			return true
		case <-l.r.cfg.Frontier.Changed(): // still moving: wait again
		}
	}
}

// currentAuthors are the frontier's authors as last published.
func (l *live) currentAuthors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.authors
}
