package relay

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Service is what a Supervisor runs for one relay (a Session, or a
// profile's relay around one) until ctx ends.
type Service interface {
	Run(ctx context.Context)
}

// Supervisor runs one service per relay, keyed by URL: each is started and
// stopped on its own, so adding or removing a relay leaves the others'
// connections and subscriptions alone (syncthing's keyed service set). The
// zero value is empty and ready.
type Supervisor[S Service] struct {
	mu  sync.Mutex
	run map[string]*supervised[S]
}

type supervised[S Service] struct {
	svc    S
	cancel context.CancelFunc
	done   chan struct{}
}

// Add runs svc for url under ctx, unless url has a service already; it
// reports whether svc was started.
func (sv *Supervisor[S]) Add(ctx context.Context, url string, svc S) bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if _, ok := sv.run[url]; ok {
		return false
	}
	if sv.run == nil {
		sv.run = map[string]*supervised[S]{}
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &supervised[S]{svc: svc, cancel: cancel, done: make(chan struct{})}
	sv.run[url] = r
	go func() {
		defer close(r.done)
		svc.Run(ctx)
	}()
	return true
}

// Set makes urls the supervised relays: it starts a service (made by start)
// for each one missing and removes the others; wait returns once those have
// ended.
func (sv *Supervisor[S]) Set(ctx context.Context, urls []string, start func(url string) S) (wait func()) {
	var gone []string
	for _, url := range sv.urLs() {
		if !slices.Contains(urls, url) {
			gone = append(gone, url)
		}
	}
	wait = sv.Remove(gone...)
	for _, url := range urls {
		if _, ok := sv.Get(url); !ok {
			sv.Add(ctx, url, start(url))
		}
	}
	return wait
}

// Remove stops the services of urls: they leave the set at once (a relay
// added again meanwhile gets a new service); wait returns once they ended.
func (sv *Supervisor[S]) Remove(urls ...string) (wait func()) {
	sv.mu.Lock()
	var stopped []*supervised[S]
	for _, url := range urls {
		if r, ok := sv.run[url]; ok {
			delete(sv.run, url)
			r.cancel()
			stopped = append(stopped, r)
		}
	}
	sv.mu.Unlock()
	return func() {
		for _, r := range stopped {
			<-r.done
		}
	}
}

// RemoveAll stops every service (Remove).
func (sv *Supervisor[S]) RemoveAll() (wait func()) { return sv.Remove(sv.urLs()...) }

// Get is url's service.
func (sv *Supervisor[S]) Get(url string) (S, bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	r, ok := sv.run[url]
	if !ok {
		var none S
		return none, false
	}
	return r.svc, true
}

// urLs are the supervised relays, sorted.
func (sv *Supervisor[S]) urLs() []string {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return slices.Sorted(maps.Keys(sv.run))
}

// All are the services, sorted by URL.
func (sv *Supervisor[S]) All() []S {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	out := make([]S, 0, len(sv.run))
	for _, url := range slices.Sorted(maps.Keys(sv.run)) {
		out = append(out, sv.run[url].svc)
	}
	return out
}
