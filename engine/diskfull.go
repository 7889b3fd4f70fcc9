package engine

import (
	"context"
	"time"
)

// storageProbeEvery is how often a full disk is tried again.
const storageProbeEvery = time.Second

// watchStorage pauses both sync profiles while the disk is full (status: state error,
// reason disk-full) and resumes it once a write succeeds again — a push, or
// its own probe — without a restart. Reads go on throughout.
func (e *Engine) watchStorage(ctx context.Context) {
	every(ctx, storageProbeEvery, func() {
		full := e.store.Full() && e.store.ProbeWrite() != nil
		if e.diskFull.Swap(full) == full {
			return
		}
		if full {
			e.log.Error("disk full: sync paused until a write succeeds again", "database", DatabasePath(e.opts.DataDir))
		} else {
			e.log.Info("disk has room again: sync resumes")
		}
		e.sync.Pause(full)
		e.repos.Pause(full)
		e.notify()
	})
}
