// Package ingest is the one validation pipeline that pushed, imported and
// synced events all go through (SPEC §3):
//
//	dedupe -> verify + validate (worker pool) -> one SQLite transaction per batch -> listeners -> reply
//
// A submitter's callback runs only after the event's transaction committed,
// which is what makes `OK true` a durability promise. Queues are bounded: a
// full queue blocks Submit (back-pressure), it never grows or drops.
package ingest

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// Store is the persistence the pipeline needs.
type Store interface {
	Has(id string) (bool, error)
	EachID(ctx context.Context, fn func(id string)) error
	SaveBatch(evs []*nostr.Event) ([]store.SaveResult, error)
}

// Checker validates an event's kind rules and eligibility (no signature
// work). What it parsed travels with the event to the commit listeners
// (Committed.Parsed), so the writer side need not parse it again.
type Checker interface {
	Check(ev *nostr.Event) (validation.Parsed, error)
}

// Admitter is a Checker's second stage, run once the signature is verified:
// rules that depend on what is held, and may act on what they refuse (a
// forged event must never end a repository), implement it.
type Admitter interface {
	Admit(ev *nostr.Event, source string) error
}

// Verifier checks an event's id and signature.
type Verifier func(ev *nostr.Event) error

// Result is the pipeline's answer for one event, shaped like a NIP-01 OK.
type Result struct {
	ID      string
	Outcome Outcome
	Message string // the OK message: "" or "prefix: reason"
}

// OK is the NIP-01 OK flag: stored now or already held.
func (r Result) OK() bool { return r.Outcome.OK() }

// Committed is one committed batch, given to listeners before any submitter
// is answered.
type Committed struct {
	Stored   []*nostr.Event
	Sources  []string            // Sources[i] is where Stored[i] came from
	Parsed   []validation.Parsed // Parsed[i] is what the Checker parsed from Stored[i]
	Replaced []string            // ids of slot losers deleted by this batch
}

// Listener is told about every committed batch, in commit order, on the
// writer goroutine: it must not block for long.
type Listener func(Committed)

// RejectListener is told about every refused event (for status and metrics).
type RejectListener func(ev *nostr.Event, source string, reason string)

// Config sizes the pipeline. Zero values take the defaults.
type Config struct {
	Workers   int // verify workers; default: one per CPU
	QueueSize int // per-stage queue bound; default 4096
	MaxBatch  int // events per transaction; default 1000
	// MaxBatchBytes bounds a transaction's events by their size (eventBytes);
	// default 4 MiB. A thousand trust events write about 9 MiB of
	// write-ahead log; a thousand large ones (repository patches, up to the
	// message size) would write gigabytes in one transaction, which no bound
	// on the log can hold (the store empties the log between transactions).
	MaxBatchBytes int
	// MaxBatchWait is how long a batch may wait to fill while events are
	// still being verified (with none on its way it is committed at once);
	// default 20ms
	MaxBatchWait time.Duration
	// SeenFilter is the held-ids filter a pipeline on the same store state
	// gave (Pipeline.SeenFilter); nil reads the ids from the store.
	SeenFilter []byte
}

// ErrClosed is returned by Submit after Close.
var ErrClosed = errors.New("ingest: pipeline closed")

type job struct {
	ev     *nostr.Event
	source string
	parsed validation.Parsed // the Checker's value
	done   func(Result)
	// twins are later submissions of the same id that arrived while this one
	// was in flight; they get this job's outcome, as duplicates.
	twins []func(Result)
}

// Pipeline is the ingest pipeline. Create with New, stop with Close.
type Pipeline struct {
	store    Store
	checker  Checker
	verify   Verifier
	cfg      Config
	verifyQ  chan *job
	writeQ   chan *job
	stop     chan struct{}
	wg       sync.WaitGroup
	writerWG sync.WaitGroup

	seen *seenFilter // ids the store may hold

	mu        sync.Mutex
	inflight  map[string]*job
	closed    bool
	listeners []Listener
	rejected  []RejectListener

	duplicates atomic.Int64

	// committing is held while a batch is stored and its listeners run, and
	// by Exclusive: a removal never interleaves with a commit.
	committing sync.Mutex

	// verifying counts jobs submitted and not yet handed to the writer or
	// answered. While it is zero and the write queue is empty, nothing is on
	// its way to the batch being filled (see writeLoop); drained tells a
	// filling writer when it drops to zero.
	verifying atomic.Int64
	drained   chan struct{}

	// cores holds one token per CPU: a verify and a commit each hold one
	// while they run. A verify is a cgo call, during which Go lends the
	// caller's P to other goroutines, so without tokens more threads run
	// than there are cores and the single writer, which every OK waits on,
	// gets a share of a core instead of one.
	cores chan struct{}
}

// New starts the pipeline's workers and writer, and loads the ids the store
// holds in the background (loadSeen).
func New(st Store, checker Checker, verify Verifier, cfg Config) (*Pipeline, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 4096
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 1000
	}
	if cfg.MaxBatchWait <= 0 {
		cfg.MaxBatchWait = 20 * time.Millisecond
	}
	if cfg.MaxBatchBytes <= 0 {
		cfg.MaxBatchBytes = 4 << 20
	}
	p := &Pipeline{
		store: st, checker: checker, verify: verify, cfg: cfg,
		verifyQ:  make(chan *job, cfg.QueueSize),
		writeQ:   make(chan *job, cfg.QueueSize),
		stop:     make(chan struct{}),
		inflight: make(map[string]*job),
		drained:  make(chan struct{}, 1),
		seen:     loadSeen(st, cfg.SeenFilter),
		cores:    make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
	for range cfg.Workers {
		p.wg.Add(1)
		go p.verifyLoop()
	}
	p.writerWG.Add(1)
	go p.writeLoop()
	return p, nil
}

// OnCommit adds a listener for committed batches. Add listeners before
// submitting events.
func (p *Pipeline) OnCommit(l Listener) {
	p.mu.Lock()
	p.listeners = append(p.listeners, l)
	p.mu.Unlock()
}

// OnReject adds a listener for refused events.
func (p *Pipeline) OnReject(r RejectListener) {
	p.mu.Lock()
	p.rejected = append(p.rejected, r)
	p.mu.Unlock()
}

// Submit queues ev; done is called exactly once with its result, after the
// commit that stored it. Submit blocks while the queue is full (back-pressure)
// and returns an error only when ctx ends or the pipeline is closed, in which
// case done is not called.
func (p *Pipeline) Submit(ctx context.Context, ev *nostr.Event, source string, done func(Result)) error {
	j := &job{ev: ev, source: source, done: done}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	if first, ok := p.inflight[ev.ID]; ok && ev.ID != "" {
		first.twins = append(first.twins, done)
		p.mu.Unlock()
		return nil
	}
	if ev.ID != "" {
		p.inflight[ev.ID] = j
	}
	p.mu.Unlock()
	p.verifying.Add(1)
	select {
	case p.verifyQ <- j:
		return nil
	case <-ctx.Done():
		p.doneVerifying()
		p.forget(j)
		return ctx.Err()
	case <-p.stop:
		p.doneVerifying()
		p.forget(j)
		return ErrClosed
	}
}

// SubmitWait submits ev and waits for its result.
func (p *Pipeline) SubmitWait(ctx context.Context, ev *nostr.Event, source string) (Result, error) {
	ch := make(chan Result, 1)
	if err := p.Submit(ctx, ev, source, func(r Result) { ch <- r }); err != nil {
		return Result{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// SubmitAll submits every event and waits until all are answered; results
// are in input order.
func (p *Pipeline) SubmitAll(ctx context.Context, evs []*nostr.Event, source string) ([]Result, error) {
	results := make([]Result, len(evs))
	var wg sync.WaitGroup
	for i, ev := range evs {
		wg.Add(1)
		if err := p.Submit(ctx, ev, source, func(r Result) { results[i] = r; wg.Done() }); err != nil {
			wg.Done()
			// events already queued still get answered; wait for them so no
			// callback writes into results after we return.
			wg.Wait()
			return results[:i], err
		}
	}
	wg.Wait()
	return results, nil
}

// Duplicates counts events answered as already held or superseded.
func (p *Pipeline) Duplicates() int64 { return p.duplicates.Load() }

// Close stops accepting events, finishes what is queued, and returns once
// every queued event has been answered.
func (p *Pipeline) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	p.wg.Wait()
	close(p.writeQ)
	p.writerWG.Wait()
	p.seen.close()
}

func (p *Pipeline) forget(j *job) {
	p.mu.Lock()
	if p.inflight[j.ev.ID] == j {
		delete(p.inflight, j.ev.ID)
	}
	p.mu.Unlock()
}

func (p *Pipeline) verifyLoop() {
	defer p.wg.Done()
	for {
		select {
		case j := <-p.verifyQ:
			p.verifyOne(j)
		case <-p.stop:
			// drain what was queued before Close so every accepted Submit is answered
			for {
				select {
				case j := <-p.verifyQ:
					p.verifyOne(j)
				default:
					return
				}
			}
		}
	}
}

// verifyOne takes j through the checks and the signature to the writer, or
// answers it.
func (p *Pipeline) verifyOne(j *job) {
	defer p.doneVerifying() // after j reached the write queue
	// the cheap checks first: a held id costs one indexed read, not a Schnorr
	// verify, and an id the filter has never seen costs no read at all
	if p.seen.mayHold(j.ev.ID) {
		if has, err := p.store.Has(j.ev.ID); err == nil && has {
			p.finish(j, Result{ID: j.ev.ID, Outcome: Duplicate, Message: MsgDuplicate})
			return
		}
	}
	parsed, err := p.checker.Check(j.ev)
	if err != nil {
		p.reject(j, err)
		return
	}
	j.parsed = parsed
	p.cores <- struct{}{}
	err = p.verify(j.ev)
	<-p.cores
	if err != nil {
		p.reject(j, err)
		return
	}
	if a, ok := p.checker.(Admitter); ok {
		if err := a.Admit(j.ev, j.source); err != nil {
			p.reject(j, err)
			return
		}
	}
	p.writeQ <- j
}

// doneVerifying counts a job out of verification and, when it was the last,
// wakes a writer waiting to fill its batch: nothing more is on its way.
func (p *Pipeline) doneVerifying() {
	if p.verifying.Add(-1) == 0 {
		select {
		case p.drained <- struct{}{}:
		default:
		}
	}
}

func (p *Pipeline) reject(j *job, err error) {
	p.mu.Lock()
	rejected := p.rejected
	p.mu.Unlock()
	for _, r := range rejected {
		r(j.ev, j.source, err.Error())
	}
	p.finish(j, Result{ID: j.ev.ID, Outcome: Rejected, Message: err.Error()})
}

func (p *Pipeline) writeLoop() {
	defer p.writerWG.Done()
	batch := make([]*job, 0, p.cfg.MaxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		j, ok := <-p.writeQ
		if !ok {
			return
		}
		batch = append(batch[:0], j)
		size := eventBytes(j.ev)
		timer.Reset(p.cfg.MaxBatchWait)
	fill:
		for len(batch) < p.cfg.MaxBatch && size < p.cfg.MaxBatchBytes {
			// Nothing on its way: commit now. Waiting out MaxBatchWait would
			// only hold back the OKs that let pushing clients send more; under
			// load, what arrives during this commit makes the next batch.
			if len(p.writeQ) == 0 && p.verifying.Load() == 0 {
				break
			}
			select {
			case j, ok := <-p.writeQ:
				if !ok {
					break fill
				}
				batch = append(batch, j)
				size += eventBytes(j.ev)
			case <-p.drained: // look again: the last job may have left verification
			case <-timer.C:
				break fill
			}
		}
		timer.Stop()
		p.cores <- struct{}{}
		p.commit(batch)
		<-p.cores
	}
}

// eventBytes is about what an event weighs in a transaction: its content
// and tags, and its fixed fields.
func eventBytes(ev *nostr.Event) int {
	n := len(ev.Content) + len(ev.ID) + len(ev.PubKey) + len(ev.Sig) + 64
	for _, tag := range ev.Tags {
		for _, v := range tag {
			n += len(v) + 4
		}
	}
	return n
}

// Exclusive runs fn between commits: a change to what the store holds
// besides the pipeline's own batches (removing events), whose effect on the
// listeners' state (the heap) must not interleave with a batch's. The
// filter of held ids may still say "maybe" for a removed id, which only
// costs that id a database read when it arrives again.
func (p *Pipeline) Exclusive(fn func()) {
	p.committing.Lock()
	defer p.committing.Unlock()
	fn()
}

func (p *Pipeline) commit(batch []*job) {
	p.committing.Lock()
	defer p.committing.Unlock()
	evs := make([]*nostr.Event, len(batch))
	for i, j := range batch {
		evs[i] = j.ev
	}
	saved, err := p.store.SaveBatch(evs)
	if err != nil {
		// nothing of this batch is stored: every submitter hears it, none gets OK true
		msg := msgFailed + err.Error()
		if store.IsFull(err) {
			msg = msgFull
		}
		for _, j := range batch {
			p.finish(j, Result{ID: j.ev.ID, Outcome: Failed, Message: msg})
		}
		return
	}
	var c Committed
	results := make([]Result, len(batch))
	for i, s := range saved {
		r := Result{ID: evs[i].ID}
		switch s.Outcome {
		case store.Stored:
			p.seen.add(evs[i].ID)
			r.Outcome = Stored
			c.Stored = append(c.Stored, evs[i])
			c.Sources = append(c.Sources, batch[i].source)
			c.Parsed = append(c.Parsed, batch[i].parsed)
			if s.Replaced != "" {
				c.Replaced = append(c.Replaced, s.Replaced)
			}
		case store.Duplicate:
			p.seen.add(evs[i].ID)
			r.Outcome, r.Message = Duplicate, MsgDuplicate
		case store.Superseded:
			r.Outcome, r.Message = Superseded, MsgSuperseded
		}
		results[i] = r
	}
	if len(c.Stored) > 0 {
		p.mu.Lock()
		listeners := p.listeners
		p.mu.Unlock()
		for _, l := range listeners {
			l(c)
		}
	}
	for i, j := range batch {
		p.finish(j, results[i])
	}
}

// finish answers a job and the twins that waited on it. A twin of a stored
// event is a duplicate; a twin of a refused one is refused the same way.
func (p *Pipeline) finish(j *job, r Result) {
	p.mu.Lock()
	if p.inflight[j.ev.ID] == j {
		delete(p.inflight, j.ev.ID)
	}
	twins := j.twins
	j.twins = nil
	p.mu.Unlock()
	if r.Outcome == Duplicate || r.Outcome == Superseded {
		p.duplicates.Add(1)
	}
	j.done(r)
	twin := r
	if r.OK() {
		twin.Outcome, twin.Message = Duplicate, MsgDuplicate
	}
	for _, done := range twins {
		if twin.OK() {
			p.duplicates.Add(1)
		}
		done(twin)
	}
}
