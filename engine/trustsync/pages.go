package trustsync

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
)

// pagesInFlight is how many fetched pages of one REQ may be in the ingest
// pipeline at once while the next page is being fetched.
const pagesInFlight = 4

// pageIngester overlaps fetching and ingesting: each page goes to the sink
// on its own goroutine while the relay is asked for the next one. wait
// returns once every page was committed, so a cursor is never moved past an
// event that is not yet stored.
type pageIngester struct {
	ctx   context.Context
	sink  Sink
	link  *relay.Link   // whose events; told how many were new to us
	pass  *atomic.Int64 // the pass's stored count, told too
	slots chan struct{}
	wg    sync.WaitGroup

	mu  sync.Mutex
	err error
}

func newPageIngester(ctx context.Context, sink Sink, link *relay.Link, pass *atomic.Int64) *pageIngester {
	return &pageIngester{ctx: ctx, sink: sink, link: link, pass: pass, slots: make(chan struct{}, pagesInFlight)}
}

// add hands a page to the sink, waiting while pagesInFlight pages are
// still being ingested. It returns the first ingest error seen so far.
func (pi *pageIngester) add(evs []*nostr.Event) error {
	select {
	case pi.slots <- struct{}{}:
	case <-pi.ctx.Done():
		return pi.ctx.Err()
	}
	pi.wg.Add(1)
	go func() {
		defer func() { <-pi.slots; pi.wg.Done() }()
		stored, err := pi.sink.Ingest(pi.ctx, pi.link.URL(), evs)
		pi.link.Stored(stored)
		pi.pass.Add(int64(stored))
		if err != nil {
			pi.mu.Lock()
			if pi.err == nil {
				pi.err = err
			}
			pi.mu.Unlock()
		}
	}()
	return pi.firstErr()
}

func (pi *pageIngester) firstErr() error {
	pi.mu.Lock()
	defer pi.mu.Unlock()
	return pi.err
}

// wait blocks until every page handed over is committed or refused.
func (pi *pageIngester) wait() error {
	pi.wg.Wait()
	return pi.firstErr()
}
