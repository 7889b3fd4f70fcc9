package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
)

// The heap is kept between runs in heap.snap beside the database (SPEC §4:
// a snapshot may make a start faster; the database stays authoritative). A
// start moves the file to heap.snap.open and loads it when its key is the
// database's state now (heapKey); otherwise, or when it is damaged, the heap
// is built from the database. Close writes the heap again, or moves the
// loaded file back when nothing changed. A run that does not close leaves
// heap.snap.open behind, which the next start removes unread: the database
// may have changed since. A read-only engine (Options.ReadOnly) loads
// heap.snap where it lies and never moves or writes it.

func heapSnapshotPath(dataDir string) string { return filepath.Join(dataDir, "heap.snap") }

// heapKey names what a snapshot of the heap is valid for: this database (its
// id), the state of the trust data in it (the generation every change moves,
// whoever makes it), this program (which decides what a stored event makes
// of the heap), and the heap's guardrails.
func (e *Engine) heapKey(limits settings.Limits) (string, error) {
	db, generation, err := e.store.HeapState()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("database %s generation %d; program %s; limits %d nodes %d edges",
		db, generation, programID(), limits.HeapNodeLimit, limits.HeapEdgeLimit), nil
}

// programID tells this build of the program from others: the version, the
// source revision when it was built from a checkout, the Go version, and
// the executable's size and time (a rebuilt binary is another program).
var programID = sync.OnceValue(func() string {
	id := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		id += " " + bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Value
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			id += fmt.Sprintf(" %d@%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return id
})

// openHeap loads the heap's snapshot when it is the database's, else builds
// the heap from the database (no signature checks: they were verified on
// write); the clock's lap says which. The snapshot also keeps the ingest
// pipeline's held-ids filter (seen, nil when there is none).
func (e *Engine) openHeap(limits settings.Limits, clock *startClock) (h *heap.Heap, seen []byte, err error) {
	h, seen, loaded, err := e.loadOrBuildHeap(limits)
	if loaded {
		clock.lap("heap-snapshot")
	} else {
		clock.lap("heap-build")
	}
	return h, seen, err
}

func (e *Engine) loadOrBuildHeap(limits settings.Limits) (h *heap.Heap, seen []byte, loaded bool, err error) {
	path := heapSnapshotPath(e.opts.DataDir)
	open := path + ".open"
	var moved error
	if e.opts.ReadOnly {
		open = path // a reader moves nothing: it loads the file where it lies, or builds
	} else {
		os.Remove(open) // a run that did not close: the database may have moved on
		moved = os.Rename(path, open)
	}
	if _, found := os.Stat(open); moved == nil && found == nil {
		key, err := e.heapKey(limits)
		if err == nil {
			var attachment []byte
			if h, attachment, err = heap.LoadSnapshot(open, []byte(key), limits); err == nil {
				seen, e.walkLoaded = unpackAttachment(attachment)
				e.heapLoaded, e.heapLimits, e.heapSeenLoaded = key, h.Stats(), seen != nil
				return h, seen, true, nil
			}
		}
		if errors.Is(err, heap.ErrStaleSnapshot) {
			e.log.Info("heap snapshot is of an older state of the database; rebuilding the heap from it")
		} else {
			e.log.Warn("heap snapshot unusable; rebuilding the heap from the database", "err", err)
		}
		if !e.opts.ReadOnly {
			os.Remove(open)
		}
	}
	h = heap.New(limits)
	res, err := h.Build(e.ctx, e.store)
	if err != nil {
		return nil, nil, false, fmt.Errorf("rebuild trust graph: %w", err)
	}
	e.heapLimits = h.Stats()
	if res.Skipped > 0 {
		e.log.Warn("stored events no longer pass validation; left out of the trust graph", "count", res.Skipped)
	}
	return h, nil, false, nil
}

// saveHeap keeps the heap, with the pipeline's held-ids filter and the
// frontier's walk, for the next start; the pipeline is closed, so all hold
// every commit. A heap loaded from a snapshot whose key is still the
// database's, with the same walk, is that snapshot: the file is only moved
// back. A heap
// that refused statements at guardrails since changed is not what a build
// under the new ones would hold, and is not kept.
func (e *Engine) saveHeap() {
	if e.trust.heap == nil || e.opts.ReadOnly || e.store.Checked() != nil {
		return
	}
	path := heapSnapshotPath(e.opts.DataDir)
	open := path + ".open"
	defer os.Remove(open)
	if st := e.trust.heap.Stats(); st.LimitReason != "" && (st.NodeLimit != e.heapLimits.NodeLimit || st.EdgeLimit != e.heapLimits.EdgeLimit) {
		return
	}
	key, err := e.heapKey(e.Settings().Limits)
	if err != nil {
		e.log.Warn("heap snapshot not written", "err", err)
		return
	}
	seen, walk := e.ingest.SeenFilter(), e.trust.frontier.Saved()
	if key == e.heapLoaded && (e.heapSeenLoaded || seen == nil) && bytes.Equal(walk, e.walkLoaded) && os.Rename(open, path) == nil {
		return
	}
	if err := e.trust.heap.SaveSnapshot(path, []byte(key), packAttachment(seen, walk)); err != nil {
		e.log.Warn("heap snapshot not written", "err", err)
	}
}

// packAttachment is what the engine keeps in the heap's snapshot beside the
// heap: the pipeline's held-ids filter (its length first) and the
// frontier's walk. Either may be nil.
func packAttachment(seen, walk []byte) []byte {
	out := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(seen)+len(walk)), uint32(len(seen)))
	return append(append(out, seen...), walk...)
}

// unpackAttachment reads what packAttachment wrote; a snapshot's key names
// the program, so no other layout reaches it, and anything short is none.
func unpackAttachment(b []byte) (seen, walk []byte) {
	if len(b) < 4 {
		return nil, nil
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > len(b)-4 {
		return nil, nil
	}
	if n > 0 {
		seen = b[4 : 4+n]
	}
	if rest := b[4+n:]; len(rest) > 0 {
		walk = rest
	}
	return seen, walk
}
