package relay

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// kindProfile subscribes one kind live (no history) and counts what comes.
type kindProfile struct {
	kind int

	mu       sync.Mutex
	received int
}

func (p *kindProfile) Open(_ context.Context, lc *LiveConn, _ int64) error {
	now := nostr.Now()
	return lc.Set.Replace([]Group{{Label: "kind", Filters: nostr.Filters{{Kinds: []int{p.kind}, Since: &now}}}})
}
func (p *kindProfile) Reopen(_ context.Context, lc *LiveConn, since int64) error {
	return lc.Set.Resubscribe(since)
}
func (p *kindProfile) Update(context.Context, *LiveConn) error { return nil }
func (p *kindProfile) Consolidate() []Group                    { return nil }
func (p *kindProfile) EOSE(any, bool)                          {}
func (p *kindProfile) Received(any, *nostr.Event) {
	p.mu.Lock()
	p.received++
	p.mu.Unlock()
}

// batchSink records the size of every batch it is handed.
type batchSink struct {
	mu      sync.Mutex
	batches []int
	delay   time.Duration
}

func (s *batchSink) Ingest(_ context.Context, _ string, evs []*nostr.Event) (int, error) {
	time.Sleep(s.delay)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, len(evs))
	return len(evs), nil
}

func (s *batchSink) total() (n, largest int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		n, largest = n+b, max(largest, b)
	}
	return n, largest
}

func newSessionLinks(st HealthStore) *Links {
	return NewLinks(st, health.ProfileTrust, func(string) Options { return Options{} }, clock.Wall{}, slog.Default())
}

// A session hands its live events to the sink in batches of the one setting
// both profiles take (LiveTuning.IngestBatch), counts what was new to us on
// the relay's link, and shows the relay live.
func TestSessionIngestsInBatchesOfTheSetting(t *testing.T) {
	r := faultrelay.StartForTest(t, faultrelay.Mode{})
	links := newSessionLinks(&healthStore{saved: map[profileURL]health.Health{}})
	p := &kindProfile{kind: 1}
	sink := &batchSink{delay: 20 * time.Millisecond} // events queue while a batch is ingested
	s := NewSession(links, r.URL, p, SessionConfig{Sink: sink, Live: LiveTuning{ingestBatch: 5}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	testutil.Eventually(t, "live", func() bool { return s.Row().State == status.StateLive })
	const n = 60
	var evs []*nostr.Event
	for i := range n {
		evs = append(evs, &nostr.Event{ID: fmt.Sprintf("%064x", i+1), Kind: 1, CreatedAt: nostr.Now(), Tags: nostr.Tags{}})
	}
	r.Publish(evs...)
	testutil.Eventually(t, "every event ingested", func() bool { got, _ := sink.total(); return got == n })
	if _, largest := sink.total(); largest > 5 {
		t.Fatalf("a batch of %d events, want at most the setting's 5", largest)
	}
	if stored := s.Link().Health().EventsStored; stored != n {
		t.Fatalf("link counted %d events stored, want %d", stored, n)
	}
}

// The supervisor starts and stops one relay's service without touching the
// others'; a removal's wait returns once that service ended.
func TestSupervisorAddsAndRemovesOneRelayAtATime(t *testing.T) {
	var sv Supervisor[*countedService]
	started := map[string]*countedService{}
	start := func(url string) *countedService {
		s := &countedService{ended: make(chan struct{})}
		started[url] = s
		return s
	}
	ctx := context.Background()
	sv.Set(ctx, []string{"a", "b"}, start)()
	a := started["a"]
	testutil.Eventually(t, "a running", func() bool { return a.runs() == 1 })
	sv.Set(ctx, []string{"a", "c"}, start)() // b leaves, c joins, a goes on
	if got := sv.urLs(); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("supervised %v, want [a c]", got)
	}
	select {
	case <-started["b"].ended:
	default:
		t.Fatal("b's service still runs after its removal was waited for")
	}
	if s, _ := sv.Get("a"); s != a || a.runs() != 1 {
		t.Fatalf("a was restarted (%d runs), want its one service left alone", a.runs())
	}
	sv.RemoveAll()()
	for url, s := range started {
		select {
		case <-s.ended:
		default:
			t.Fatalf("%s still runs after RemoveAll's wait", url)
		}
	}
}

// countedService runs until its context ends.
type countedService struct {
	mu    sync.Mutex
	n     int
	ended chan struct{}
}

func (s *countedService) Run(ctx context.Context) {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	<-ctx.Done()
	close(s.ended)
}

func (s *countedService) runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
