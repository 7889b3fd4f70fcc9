package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// The commands below are what the UI calls. Each changes the settings in the
// database (the shared truth) the way a CLI process does, then applies them
// at once instead of waiting for the settings watcher's next tick.

// SetStrategy switches the sync strategy.
func (e *Engine) SetStrategy(id string) error { return e.modify(settings.SetStrategy(id)) }

// SetInterval sets the interval strategy's period (0 = manual).
func (e *Engine) SetInterval(minutes int) error { return e.modify(settings.SetInterval(minutes)) }

// SetPaused pauses or resumes syncing.
func (e *Engine) SetPaused(paused bool) error { return e.modify(settings.SetPaused(paused)) }

// SetLimits sets the frontier caps and heap guardrails.
func (e *Engine) SetLimits(l settings.Limits) error { return e.modify(settings.SetLimits(l)) }

// SetListen sets the listen address (used from the next start).
func (e *Engine) SetListen(addr string, allowLAN bool) error {
	return e.modify(settings.SetListen(addr, allowLAN))
}

// SetScopeProfile sets the scope profile.
func (e *Engine) SetScopeProfile(scope string) error {
	return e.modify(settings.SetScopeProfile(scope))
}

// SetNotify turns the desktop app's notifications on or off.
func (e *Engine) SetNotify(on bool) error { return e.modify(settings.SetNotify(on)) }

// SetStartAtLogin records the start-at-login choice (the UI writes the
// desktop's autostart entry).
func (e *Engine) SetStartAtLogin(on bool) error { return e.modify(settings.SetStartAtLogin(on)) }

// AddRelay adds a sync relay after checking its URL.
func (e *Engine) AddRelay(url string) error { return e.modify(settings.AddRelay(url)) }

// RemoveRelay removes a sync relay with its cursors and health.
func (e *Engine) RemoveRelay(url string) error { return e.modify(settings.RemoveRelay(url)) }

// AddRoot adds a configured root (npub or hex).
func (e *Engine) AddRoot(npubOrHex string) error { return e.modify(settings.AddRoot(npubOrHex)) }

// RemoveRoot removes a configured root (npub or hex).
func (e *Engine) RemoveRoot(npubOrHex string) error { return e.modify(settings.RemoveRoot(npubOrHex)) }

// AddRepoService adds one of our public relay URLs for repository sync.
func (e *Engine) AddRepoService(url string) error { return e.modify(settings.AddRepoService(url)) }

// RemoveRepoService removes one of our public relay URLs.
func (e *Engine) RemoveRepoService(url string) error {
	return e.modify(settings.RemoveRepoService(url))
}

// SetRepoBootstrap sets the repository sync's bootstrap relay; "" = none.
func (e *Engine) SetRepoBootstrap(url string) error { return e.modify(settings.SetRepoBootstrap(url)) }

// AllowHost lets requests name this server by host (SPEC §9 host allow-list).
func (e *Engine) AllowHost(name string) error { return e.modify(settings.AllowHost(name)) }

// DisallowHost takes a host name off the allow-list.
func (e *Engine) DisallowHost(name string) error { return e.modify(settings.DisallowHost(name)) }

// AllowOrigin lets a web page's origin read and write (SPEC §9 origins).
func (e *Engine) AllowOrigin(origin string) error { return e.modify(settings.AllowOrigin(origin)) }

// DisallowOrigin takes a web page's origin off the allow-list.
func (e *Engine) DisallowOrigin(origin string) error {
	return e.modify(settings.DisallowOrigin(origin))
}

func (e *Engine) modify(change func(*settings.Settings) error) error {
	if err := settings.Modify(e.store, change); err != nil {
		return err
	}
	return e.reloadSettings()
}

// Limits of an import's second and further rounds (ImportRetries).
const (
	// ImportRetryMax and ImportRetryMaxBytes bound the events an import
	// keeps for another round: past either, a refusal for a dependency is
	// counted as rejected at once (importing the file again stores it, as
	// what it waited for is then held).
	ImportRetryMax      = 10000
	ImportRetryMaxBytes = 64 << 20
	// ImportRetryRounds bounds the rounds after the first; each one runs
	// only while the one before stored something.
	ImportRetryRounds = 16
)

// ImportRetries are the events of an import refused only because what they
// depend on was not held yet (reposync.WaitsForOthers): the lines of a file
// are checked in parallel and in any order, so a comment can be checked
// before its issue, and the issue before its repository's announcement.
// They are submitted again in rounds once the events before them are
// committed; only what is still refused after the last round counts as
// rejected. Both import paths (Engine.Import and the push to a running
// server) use it. Not safe for concurrent use.
type ImportRetries struct {
	held   map[string]bool // ids held for the next round
	next   []ImportRetry
	bytes  int
	stored int // answers since the last Take that hold their event
}

// ImportRetry is one event held for another round: its id, its JSON (or
// whatever the import sends again) and the refusal it last got.
type ImportRetry struct {
	ID      string
	Line    []byte
	Refusal ingest.Result
}

// Hold takes every answer of the import. It keeps line (the caller's to
// give: it is not copied) for the next round when r refuses it only for a
// dependency and there is room. When kept, r must not be counted yet;
// otherwise the returned result is what to count (its message says so when
// the cap refused to keep it). A second copy of an id already held counts
// as a duplicate.
func (rs *ImportRetries) Hold(r ingest.Result, line []byte) (ingest.Result, bool) {
	if r.OK() {
		rs.stored++
	}
	if r.OK() || !reposync.WaitsForOthers(r.Message) {
		return r, false
	}
	if rs.held[r.ID] {
		return ingest.Result{ID: r.ID, Outcome: ingest.Duplicate, Message: ingest.MsgDuplicate}, false
	}
	if len(rs.next) >= ImportRetryMax || rs.bytes+len(line) > ImportRetryMaxBytes {
		r.Message += fmt.Sprintf(" (not tried again: more than %d events or %d MiB of this import waited for others; import the file again)",
			ImportRetryMax, ImportRetryMaxBytes>>20)
		return r, false
	}
	if rs.held == nil {
		rs.held = map[string]bool{}
	}
	rs.held[r.ID] = true
	rs.next = append(rs.next, ImportRetry{ID: r.ID, Line: line, Refusal: r})
	rs.bytes += len(line)
	return r, true
}

// Take hands over the events held for the next round and empties the set
// (Hold fills it again with what that round still refuses).
func (rs *ImportRetries) Take() []ImportRetry {
	evs := rs.next
	rs.held, rs.next, rs.bytes, rs.stored = nil, nil, 0, 0
	return evs
}

// Len is the number of events held for the next round.
func (rs *ImportRetries) Len() int { return len(rs.next) }

// Stored is the number of answers since the last Take that hold their
// event: a round that stored nothing cannot help the events still held.
func (rs *ImportRetries) Stored() int { return rs.stored }

// Import reads one JSON event per line and sends each through the ingest
// pipeline, reporting progress after every thousand answers. Submit blocks
// while the pipeline is full, so memory stays bounded for any file size.
// Events refused only because what they depend on is not held yet are
// submitted again after the file (ImportRetries).
func (e *Engine) Import(ctx context.Context, r io.Reader, progress func(ingest.Tally)) (ingest.Tally, error) {
	var (
		mu    sync.Mutex
		tally ingest.Tally
		wg    sync.WaitGroup
		retry ImportRetries
	)
	add := func(r ingest.Result) { // with mu held
		if tally.Add(r) && progress != nil {
			progress(tally)
		}
	}
	submit := func(ev *nostr.Event) error {
		wg.Add(1)
		err := e.ingest.Submit(ctx, ev, "import", func(r ingest.Result) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			var line []byte
			if !r.OK() && reposync.WaitsForOthers(r.Message) {
				line, _ = json.Marshal(ev)
			}
			if r, kept := retry.Hold(r, line); !kept {
				add(r)
			}
		})
		if err != nil {
			wg.Done()
		}
		return err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var submitErr error
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		mu.Lock()
		tally.Lines++
		mu.Unlock()
		var ev nostr.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			mu.Lock()
			add(ingest.Result{Outcome: ingest.Rejected, Message: fmt.Sprintf("invalid: line %d is not a JSON event: %v", line, err)})
			mu.Unlock()
			continue
		}
		if submitErr = submit(&ev); submitErr != nil {
			break
		}
	}
	wg.Wait()
	if submitErr == nil {
		if err := sc.Err(); err != nil {
			submitErr = fmt.Errorf("read import: %w", err)
		}
	}
	// every answer is in, so every stored event is committed and known to
	// the acceptance check: what waited for one of them passes now
	for round := 0; submitErr == nil && round < ImportRetryRounds && retry.Len() > 0; round++ {
		mu.Lock()
		evs := retry.Take()
		mu.Unlock()
		for i, h := range evs {
			var ev nostr.Event
			if err := json.Unmarshal(h.Line, &ev); err != nil { // it was marshalled by us
				submitErr = fmt.Errorf("import: event %s held for another round: %w", h.ID, err)
			} else {
				submitErr = submit(&ev)
			}
			if submitErr != nil {
				mu.Lock()
				for _, h := range evs[i:] {
					add(h.Refusal)
				}
				mu.Unlock()
				break
			}
		}
		wg.Wait()
		if retry.Stored() == 0 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range retry.Take() {
		add(h.Refusal)
	}
	if progress != nil {
		progress(tally)
	}
	return tally, submitErr
}

// ExportEvents writes every stored event of the given kinds (every event
// the store holds, of either profile, when empty) as one JSON object per
// line, in storage order. It only reads, so it works beside a running server.
func ExportEvents(ctx context.Context, st *store.Store, w io.Writer, kinds []int) (int, error) {
	if len(kinds) == 0 {
		kinds = nil // Scan: every kind
	}
	bw := bufio.NewWriter(w)
	n := 0
	err := st.Scan(ctx, kinds, func(ev *nostr.Event) error {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}
