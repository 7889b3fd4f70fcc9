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

// Import reads one JSON event per line and sends each through the ingest
// pipeline, reporting progress after every thousand answers. Submit blocks
// while the pipeline is full, so memory stays bounded for any file size.
func (e *Engine) Import(ctx context.Context, r io.Reader, progress func(ingest.Tally)) (ingest.Tally, error) {
	var (
		mu    sync.Mutex
		tally ingest.Tally
		wg    sync.WaitGroup
	)
	add := func(r ingest.Result) {
		mu.Lock()
		defer mu.Unlock()
		if tally.Add(r) && progress != nil {
			progress(tally)
		}
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
			add(ingest.Result{Outcome: ingest.Rejected, Message: fmt.Sprintf("invalid: line %d is not a JSON event: %v", line, err)})
			continue
		}
		wg.Add(1)
		err := e.ingest.Submit(ctx, &ev, "import", func(r ingest.Result) {
			add(r)
			wg.Done()
		})
		if err != nil {
			wg.Done()
			submitErr = err
			break
		}
	}
	wg.Wait()
	if submitErr == nil {
		if err := sc.Err(); err != nil {
			submitErr = fmt.Errorf("read import: %w", err)
		}
	}
	if progress != nil {
		progress(tally)
	}
	return tally, submitErr
}

// ExportEvents writes every stored event of the given kinds (all kept kinds
// when empty) as one JSON object per line. It only reads, so it works beside
// a running server.
func ExportEvents(ctx context.Context, st *store.Store, w io.Writer, kinds []int) (int, error) {
	if len(kinds) == 0 {
		kinds = KeptKinds
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
