// Package importer reads events, one JSON object per line or the AttentionX
// extension's export (formats.go), and sends each through a Transport: the ingest pipeline of the engine in this process, or
// a running server's WebSocket. The lines are checked in parallel and in any
// order, so an event refused only because what it depends on is not held yet
// (reposync.WaitsForOthers: a comment before its issue, an issue before its
// repository's announcement) is held and sent again once everything before
// it is committed, in rounds while a round stores anything. Only what is
// still refused then counts as rejected.
package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/reposync"
)

// Transport carries events to an ingest pipeline.
type Transport interface {
	// Send submits ev, whose JSON is line. Unless it returns an error, done
	// is called exactly once with the event's answer, from any goroutine.
	// Send may block while many answers are outstanding.
	Send(ctx context.Context, ev *nostr.Event, line []byte, done func(ingest.Result)) error
	// Err is why the transport stopped working (nil while it works): what
	// was outstanding then was answered with an "error:" result.
	Err() error
}

// The bounds of what an import holds for another round: past either, a
// refusal for a dependency counts as rejected at once (importing the file
// again stores it, as what it waited for is then held). MaxRounds bounds
// the rounds after the first.
const (
	MaxHeld      = 10000
	MaxHeldBytes = 64 << 20
	MaxRounds    = 16
)

// Run sends every event of in (JSONL, or an attentionx-export: openSource)
// through t and counts the answers, calling progress (when not nil) after
// every thousand and once at the end.
func Run(ctx context.Context, in io.Reader, t Transport, progress func(ingest.Tally)) (ingest.Tally, error) {
	s := &sending{ctx: ctx, t: t, progress: progress}
	src, closeSource, err := openSource(in)
	if err != nil {
		return s.tally, err
	}
	defer closeSource()
	s.tally.Format = src.format()
	err = s.sendAll(src)
	s.wg.Wait()
	if err == nil {
		err = s.retryHeld()
	}
	if err == nil {
		err = t.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.held.take() {
		s.count(h.refusal)
	}
	if progress != nil {
		progress(s.tally)
	}
	return s.tally, err
}

// sending is one Run: the events sent and the answers counted.
type sending struct {
	ctx      context.Context
	t        Transport
	progress func(ingest.Tally)

	wg    sync.WaitGroup // answers outstanding
	mu    sync.Mutex
	tally ingest.Tally
	held  retries
}

// count counts an answer; mu must be held.
func (s *sending) count(r ingest.Result) {
	if s.tally.Add(r) && s.progress != nil {
		s.progress(s.tally)
	}
}

// send sends ev, whose JSON is line; its answer is counted, or held for
// another round.
func (s *sending) send(ev *nostr.Event, line []byte) error {
	s.wg.Add(1)
	err := s.t.Send(s.ctx, ev, line, func(r ingest.Result) {
		defer s.wg.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		if r, kept := s.held.hold(r, line); !kept {
			s.count(r)
		}
	})
	if err != nil {
		s.wg.Done()
	}
	return err
}

// sendAll sends every event of src, counting a line that is no JSON event
// as rejected; it returns without waiting for the answers.
func (s *sending) sendAll(src source) error {
	for {
		text, where, err := src.next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		s.mu.Lock()
		s.tally.Lines++
		s.mu.Unlock()
		var ev nostr.Event
		if jsonErr := json.Unmarshal(text, &ev); jsonErr != nil {
			s.mu.Lock()
			s.count(ingest.Result{Outcome: ingest.Rejected, Message: fmt.Sprintf("invalid: %s is not a JSON event: %v", where, jsonErr)})
			s.mu.Unlock()
			continue
		}
		if err := s.send(&ev, text); err != nil {
			return err
		}
	}
}

// retryHeld sends the held events again, in rounds while a round stores
// any. It runs once every answer is in, so every stored event is committed
// and known to the acceptance rules: what waited for one of them passes now.
func (s *sending) retryHeld() error {
	var err error
	for round := 0; err == nil && s.t.Err() == nil && round < MaxRounds && s.held.len() > 0; round++ {
		s.mu.Lock()
		evs := s.held.take()
		s.mu.Unlock()
		for i, h := range evs {
			var ev nostr.Event
			if err = json.Unmarshal(h.line, &ev); err == nil { // it parsed before
				err = s.send(&ev, h.line)
			}
			if err != nil {
				s.mu.Lock()
				for _, h := range evs[i:] {
					s.count(h.refusal)
				}
				s.mu.Unlock()
				break
			}
		}
		s.wg.Wait()
		if s.held.stored == 0 {
			break
		}
	}
	return err
}

// retries are the events held for another round. Not safe for concurrent use.
type retries struct {
	ids    map[string]bool
	next   []retry
	bytes  int
	stored int // answers since the last take that hold their event
}

// retry is one event held for another round: its id, its JSON and the
// refusal it last got.
type retry struct {
	id      string
	line    []byte
	refusal ingest.Result
}

// hold takes every answer. It keeps line for the next round when r refuses
// it only for a dependency and there is room; then r must not be counted yet.
// Otherwise the returned result is what to count (its message says so when
// the bounds refused to keep it). A second copy of a held id is a duplicate.
func (rs *retries) hold(r ingest.Result, line []byte) (ingest.Result, bool) {
	if r.OK() {
		rs.stored++
	}
	if r.OK() || !reposync.WaitsForOthers(r.Message) {
		return r, false
	}
	if rs.ids[r.ID] {
		return ingest.Result{ID: r.ID, Outcome: ingest.Duplicate, Message: ingest.MsgDuplicate}, false
	}
	if len(rs.next) >= MaxHeld || rs.bytes+len(line) > MaxHeldBytes {
		r.Message += fmt.Sprintf(" (not tried again: more than %d events or %d MiB of this import waited for others; import the file again)",
			MaxHeld, MaxHeldBytes>>20)
		return r, false
	}
	if rs.ids == nil {
		rs.ids = map[string]bool{}
	}
	rs.ids[r.ID] = true
	rs.next = append(rs.next, retry{id: r.ID, line: line, refusal: r})
	rs.bytes += len(line)
	return r, true
}

// take hands over the held events and empties the set.
func (rs *retries) take() []retry {
	evs := rs.next
	*rs = retries{}
	return evs
}

func (rs *retries) len() int { return len(rs.next) }
