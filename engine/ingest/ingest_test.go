package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

// faultyStore is the real store with fault injection: it can hold commits
// until released, or fail them.
type faultyStore struct {
	*store.Store
	hold chan struct{} // when not nil, SaveBatch waits for a receive
	fail atomic.Bool
	// batchBytes are the sizes (eventBytes) of the batches saved
	mu         sync.Mutex
	batchBytes []int
}

func (s *faultyStore) SaveBatch(evs []*nostr.Event) ([]store.SaveResult, error) {
	size := 0
	for _, ev := range evs {
		size += eventBytes(ev)
	}
	s.mu.Lock()
	s.batchBytes = append(s.batchBytes, size)
	s.mu.Unlock()
	if s.hold != nil {
		<-s.hold
	}
	if s.fail.Load() {
		return nil, errors.New("disk full")
	}
	return s.Store.SaveBatch(evs)
}

func newPipeline(t *testing.T, cfg Config) (*Pipeline, *faultyStore) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	fs := &faultyStore{Store: st}
	p, err := New(fs, validation.DefaultProfile(), validation.VerifyEvent, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(); st.Close() })
	return p, fs
}

func statements(n int) []*nostr.Event {
	a := fixture.NewAuthor(1)
	evs := make([]*nostr.Event, n)
	for i := range evs {
		evs[i] = a.Trust(fixture.P(fixture.NewAuthor(100+i).Pubkey), "1", 1700000000)
	}
	return evs
}

func TestOKOnlyAfterCommitAndListeners(t *testing.T) {
	p, st := newPipeline(t, Config{})
	var listened atomic.Int64
	p.OnCommit(func(c Committed) { listened.Add(int64(len(c.Stored))) })
	evs := statements(50)
	var wg sync.WaitGroup
	for _, ev := range evs {
		wg.Add(1)
		err := p.Submit(context.Background(), ev, "test", func(r Result) {
			defer wg.Done()
			held, _ := st.Has(ev.ID)
			if !r.OK() || r.Outcome != Stored || !held || listened.Load() == 0 {
				t.Errorf("answered %+v before commit (held %v, listened %d)", r, held, listened.Load())
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if listened.Load() != 50 {
		t.Fatalf("listeners saw %d stored events, want 50", listened.Load())
	}
}

func TestSameEventTwiceInFlightIsStoredOnce(t *testing.T) {
	p, _ := newPipeline(t, Config{})
	ev := statements(1)[0]
	results, err := p.SubmitAll(context.Background(), []*nostr.Event{ev, ev, ev}, "test")
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	for _, r := range results {
		if !r.OK() {
			t.Fatalf("refused: %s", r.Message)
		}
		if r.Outcome == Stored {
			stored++
		} else if r.Message != MsgDuplicate {
			t.Fatalf("twin answered %q, want %q", r.Message, MsgDuplicate)
		}
	}
	if stored != 1 || p.Duplicates() != 2 {
		t.Fatalf("stored %d times with %d duplicates, want once and 2", stored, p.Duplicates())
	}
	// a later submission is recognised before any signature work
	r, _ := p.SubmitWait(context.Background(), ev, "test")
	if !r.OK() || r.Outcome == Stored || r.Message != MsgDuplicate {
		t.Fatalf("resubmission: %+v", r)
	}
}

func TestRefusalNamesRule(t *testing.T) {
	p, _ := newPipeline(t, Config{})
	var rejected []string
	var mu sync.Mutex
	p.OnReject(func(_ *nostr.Event, source, reason string) {
		mu.Lock()
		rejected = append(rejected, source+" "+reason)
		mu.Unlock()
	})
	ev := statements(1)[0]
	last := "0"
	if ev.Sig[127] == '0' {
		last = "1"
	}
	ev.Sig = ev.Sig[:127] + last
	r, _ := p.SubmitWait(context.Background(), ev, "push")
	if r.OK() || r.Message != "invalid: bad signature" {
		t.Fatalf("forged signature answered %+v", r)
	}
	if len(rejected) != 1 || rejected[0] != "push invalid: bad signature" {
		t.Fatalf("reject listeners saw %v", rejected)
	}
}

// TestFullQueueBlocksTheProducer: with commits held, Submit stops taking
// events once the bounded queues are full, instead of growing memory.
func TestFullQueueBlocksTheProducer(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fs := &faultyStore{Store: st, hold: make(chan struct{})}
	p, err := New(fs, validation.DefaultProfile(), validation.VerifyEvent, Config{Workers: 1, QueueSize: 4, MaxBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	evs := statements(40)
	answered := make(chan Result, len(evs))
	accepted := 0
	for _, ev := range evs {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		err := p.Submit(ctx, ev, "test", func(r Result) { answered <- r })
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		accepted++
	}
	// verify queue 4 + write queue 4 + the batch held in SaveBatch (2) + one in each worker's hands
	if accepted >= len(evs) || accepted > 4+4+2+2 {
		t.Fatalf("Submit accepted %d events with commits held; the queues are not bounded", accepted)
	}
	close(fs.hold) // release: every accepted event is answered, none lost
	p.Close()
	if len(answered) != accepted {
		t.Fatalf("%d of %d accepted events were answered", len(answered), accepted)
	}
	for range accepted {
		if r := <-answered; !r.OK() || r.Outcome != Stored {
			t.Fatalf("after release: %+v", r)
		}
	}
}

func TestStoreFailureIsNeverAcknowledged(t *testing.T) {
	p, st := newPipeline(t, Config{})
	st.fail.Store(true)
	ev := statements(1)[0]
	r, err := p.SubmitWait(context.Background(), ev, "test")
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || r.Message != "error: could not store event: disk full" {
		t.Fatalf("failed commit answered %+v", r)
	}
	st.fail.Store(false)
	if r, _ = p.SubmitWait(context.Background(), ev, "test"); !r.OK() || r.Outcome != Stored {
		t.Fatalf("the same event after the store recovered: %+v", r)
	}
}

// holdingHalf is a store holding the first 10 of 20 statements, and the 20.
func holdingHalf(t *testing.T) (*store.Store, []*nostr.Event) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	evs := statements(20)
	if _, err := st.SaveBatch(evs[:10]); err != nil {
		t.Fatal(err)
	}
	return st, evs
}

// TestHeldIdsSkipSignatureWork: ids already in the store when the pipeline
// starts are answered as duplicates without a signature check, and new ids
// are not mistaken for held ones.
func TestHeldIdsSkipSignatureWork(t *testing.T) {
	st, evs := holdingHalf(t)
	var verified atomic.Int64
	verify := func(ev *nostr.Event) error { verified.Add(1); return validation.VerifyEvent(ev) }
	p, err := New(st, validation.DefaultProfile(), verify, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	results, err := p.SubmitAll(context.Background(), evs, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if held := i < 10; (r.Outcome == Stored) == held || !r.OK() {
			t.Fatalf("event %d (held before start: %v) answered %+v", i, held, r)
		}
	}
	if verified.Load() != 10 {
		t.Fatalf("%d signature checks for 10 new and 10 held events, want 10", verified.Load())
	}
}

func TestSeenFilter(t *testing.T) {
	var f seenFilter
	f.loaded.Store(true)
	evs := statements(200)
	for _, ev := range evs[:100] {
		f.add(ev.ID)
	}
	for _, ev := range evs[:100] {
		if !f.mayHold(ev.ID) {
			t.Fatal("an added id is reported as certainly new")
		}
	}
	falsePositives := 0
	for _, ev := range evs[100:] {
		if f.mayHold(ev.ID) {
			falsePositives++
		}
	}
	if falsePositives > 1 {
		t.Fatalf("%d of 100 new ids look held in a nearly empty filter", falsePositives)
	}
	if !f.mayHold("not hex") {
		t.Fatal("an id the filter cannot hash must fall back to the database check")
	}
}

// slowIDs is a store whose held ids are read only when release is closed.
type slowIDs struct {
	*store.Store
	release chan struct{}
}

func (s slowIDs) EachID(ctx context.Context, fn func(string)) error {
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.EachID(ctx, fn)
}

// The pipeline starts without waiting for the held ids (a million take
// seconds): until they are read, a held event is still answered as a
// duplicate (from the database), and new events are stored.
func TestStartsBeforeTheHeldIdsAreRead(t *testing.T) {
	st, evs := holdingHalf(t)
	slow := slowIDs{Store: st, release: make(chan struct{})}
	p, err := New(slow, validation.DefaultProfile(), validation.VerifyEvent, Config{})
	if err != nil {
		t.Fatal(err)
	}
	results, err := p.SubmitAll(context.Background(), evs, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if want := map[bool]Outcome{true: Duplicate, false: Stored}[i < 10]; r.Outcome != want {
			t.Fatalf("event %d answered %+v while the ids load, want %v", i, r, want)
		}
	}
	if p.seen.loaded.Load() {
		t.Fatal("the filter says it holds ids it has not read")
	}
	close(slow.release)
	testutil.Eventually(t, "the held ids read", p.seen.loaded.Load)
	for _, ev := range evs {
		if !p.seen.mayHold(ev.ID) {
			t.Fatalf("held id %s certainly new once loaded", ev.ID)
		}
	}
	p.Close()
	// Close ends a load still running
	stuck, err := New(slowIDs{Store: st, release: make(chan struct{})}, validation.DefaultProfile(), validation.VerifyEvent, Config{})
	if err != nil {
		t.Fatal(err)
	}
	stuck.Close()
}

// A pipeline given the filter an earlier one held (Config.SeenFilter, kept
// in the heap snapshot) starts with it whole and reads no ids.
func TestSeenFilterCarriedOver(t *testing.T) {
	p, st := newPipeline(t, Config{})
	evs := statements(20)
	if _, err := p.SubmitAll(context.Background(), evs[:10], "test"); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the held ids read", p.seen.loaded.Load)
	saved := p.SeenFilter()
	never := slowIDs{Store: st.Store, release: make(chan struct{})}
	var verified atomic.Int64
	verify := func(ev *nostr.Event) error { verified.Add(1); return validation.VerifyEvent(ev) }
	next, err := New(never, validation.DefaultProfile(), verify, Config{SeenFilter: saved})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if !next.seen.loaded.Load() {
		t.Fatal("a carried-over filter is not whole at once")
	}
	results, err := next.SubmitAll(context.Background(), evs, "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if want := map[bool]Outcome{true: Duplicate, false: Stored}[i < 10]; r.Outcome != want {
			t.Fatalf("event %d answered %+v, want %v", i, r, want)
		}
	}
	if verified.Load() != 10 {
		t.Fatalf("%d signature checks for 10 new and 10 held events, want 10", verified.Load())
	}
}

// A batch is committed as soon as nothing more is on its way: a lone event,
// or the last of a burst, is not held for MaxBatchWait (here an hour), which
// would hold back the OKs a pushing client waits on before it sends more.
func TestBatchCommitsWhenNothingMoreIsOnItsWay(t *testing.T) {
	p, st := newPipeline(t, Config{MaxBatchWait: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	evs := statements(301)
	r, err := p.SubmitWait(ctx, evs[0], "test")
	if err != nil || r.Outcome != Stored {
		t.Fatalf("lone event: %+v %v", r, err)
	}
	results, err := p.SubmitAll(ctx, evs[1:], "test")
	if err != nil {
		t.Fatalf("burst: %v", err)
	}
	for _, r := range results {
		if r.Outcome != Stored {
			t.Fatalf("burst event: %+v", r)
		}
	}
	if n, err := st.Count(ctx, nostr.Filter{}); err != nil || n != int64(len(evs)) {
		t.Fatalf("stored %d (%v), want %d", n, err, len(evs))
	}
}

// Large events make smaller batches: a transaction holds events up to
// MaxBatchBytes (the last one may pass it), however many MaxBatch allows,
// so one transaction's write-ahead log stays within what its bound holds.
func TestBatchesAreBoundedInBytes(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fs := &faultyStore{Store: st, hold: make(chan struct{})}
	const limit = 8000
	p, err := New(fs, validation.DefaultProfile(), validation.VerifyEvent, Config{MaxBatchBytes: limit, MaxBatchWait: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	author := fixture.NewAuthor(7)
	var evs []*nostr.Event
	for i := range 60 {
		evs = append(evs, author.Trust(fixture.P(fixture.NewAuthor(100+i).Pubkey), "1", 1_700_000_000, fixture.Content(strings.Repeat("x", 1000))))
	}
	largest := 0
	for _, ev := range evs {
		largest = max(largest, eventBytes(ev))
	}
	results := make(chan []Result, 1)
	go func() {
		r, _ := p.SubmitAll(context.Background(), evs, "test")
		results <- r
	}()
	// the first batch is held until every event waits in the queues behind it
	testutil.EventuallyWithin(t, 10*time.Second, "every event verified", func() bool {
		return len(p.verifyQ) == 0 && p.verifying.Load() == 0
	})
	close(fs.hold)
	for _, r := range <-results {
		if !r.OK() || r.Outcome != Stored {
			t.Fatalf("%+v", r)
		}
	}
	p.Close()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	t.Logf("batches of %v bytes (events of %d)", fs.batchBytes, largest)
	if len(fs.batchBytes) < 60*largest/(limit+largest) {
		t.Fatalf("%d batches for %d events of about %d bytes under %d", len(fs.batchBytes), len(evs), largest, limit)
	}
	for _, b := range fs.batchBytes {
		if b >= limit+largest {
			t.Fatalf("a batch of %d bytes, bound %d", b, limit)
		}
	}
}
