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
	var (
		mu    sync.Mutex
		tally ingest.Tally
		wg    sync.WaitGroup
		held  retries
	)
	add := func(r ingest.Result) { // with mu held
		if tally.Add(r) && progress != nil {
			progress(tally)
		}
	}
	send := func(ev *nostr.Event, line []byte) error {
		wg.Add(1)
		err := t.Send(ctx, ev, line, func(r ingest.Result) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if r, kept := held.hold(r, line); !kept {
				add(r)
			}
		})
		if err != nil {
			wg.Done()
		}
		return err
	}
	src, closeSource, err := openSource(in)
	if err != nil {
		return tally, err
	}
	defer closeSource()
	tally.Format = src.format()
	for err == nil {
		text, where, readErr := src.next()
		if readErr != nil {
			if readErr != io.EOF {
				err = readErr
			}
			break
		}
		mu.Lock()
		tally.Lines++
		mu.Unlock()
		var ev nostr.Event
		if jsonErr := json.Unmarshal(text, &ev); jsonErr != nil {
			mu.Lock()
			add(ingest.Result{Outcome: ingest.Rejected, Message: fmt.Sprintf("invalid: %s is not a JSON event: %v", where, jsonErr)})
			mu.Unlock()
			continue
		}
		err = send(&ev, text)
	}
	wg.Wait()
	// every answer is in, so every stored event is committed and known to
	// the acceptance rules: what waited for one of them passes now
	for round := 0; err == nil && t.Err() == nil && round < MaxRounds && held.len() > 0; round++ {
		mu.Lock()
		evs := held.take()
		mu.Unlock()
		for i, h := range evs {
			var ev nostr.Event
			if err = json.Unmarshal(h.line, &ev); err == nil { // it parsed before
				err = send(&ev, h.line)
			}
			if err != nil {
				mu.Lock()
				for _, h := range evs[i:] {
					add(h.refusal)
				}
				mu.Unlock()
				break
			}
		}
		wg.Wait()
		if held.stored == 0 {
			break
		}
	}
	if err == nil {
		err = t.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range held.take() {
		add(h.refusal)
	}
	if progress != nil {
		progress(tally)
	}
	return tally, err
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
