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

// live keeps subscriptions open on every relay: for the frontier's authors
// (frontier-continuous) or for every kept event (global-continuous).
type live struct {
	r      *Runner
	global bool

	mu      sync.Mutex
	authors []string
	waiters []chan struct{}
}

func newLive(r *Runner, global bool) *live {
	return &live{r: r, global: global}
}

func (l *live) run(ctx context.Context) {
	l.authors = trustFamily.normalizeKeys(l.r.cfg.Frontier.Authors())
	var wg sync.WaitGroup
	if !l.global {
		wg.Go(func() { l.watchFrontier(ctx) })
	}
	relays := l.r.relays()
	for _, url := range relays {
		wg.Go(func() { l.relayLoop(ctx, url) })
	}
	if len(relays) > 0 {
		// with no relay there is nothing live to follow: the pass's "partial
		// (no-relays)" stays the state
		l.r.setState(status.StateLive)
	}
	wg.Wait()
}

// maxResubscribeWait bounds the trailing debounce: a frontier that keeps
// changing is still followed this long after its first change.
const maxResubscribeWait = 10 * time.Second

// watchFrontier publishes the frontier's authors to the relay loops once it
// has settled after a change.
func (l *live) watchFrontier(ctx context.Context) {
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
		changed := !slices.Equal(next, l.authors)
		if changed {
			l.authors = next
			for _, w := range l.waiters {
				select {
				case w <- struct{}{}:
				default:
				}
			}
		}
		l.mu.Unlock()
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

func (l *live) subscribeAuthors() (<-chan struct{}, func() []string) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	return ch, func() []string {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.authors
	}
}

// relayLoop keeps one relay connected as its health allows (relay.Links.Keep).
func (l *live) relayLoop(ctx context.Context, url string) {
	link := l.r.links.Get(url)
	changed, authors := l.subscribeAuthors()
	var floor int64 // after a drop: re-read from the last good moment − 15 min
	l.r.links.Keep(ctx, link, relay.Loop{
		OnState: func(state string) { l.r.setRelayState(url, state) },
		Serve: func(ctx context.Context, conn *relay.Conn) error {
			lastGood, failure := newSession(l, link, conn).serve(ctx, changed, authors, floor)
			if !lastGood.IsZero() {
				floor = lastGood.Add(-relay.ReconnectWindow).Unix()
			}
			return failure
		},
	})
}
