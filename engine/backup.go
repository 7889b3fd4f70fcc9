package engine

import (
	"context"
	"io"
)

// DataDir is the engine's data directory.
func (e *Engine) DataDir() string { return e.opts.DataDir }

// Backup writes a consistent snapshot of the database to path, also while
// events arrive (the CLI's `backup`).
func (e *Engine) Backup(path string) error { return e.store.Backup(path) }

// Export writes every stored event to w, one JSON event per line (the CLI's
// `export`), and returns how many.
func (e *Engine) Export(ctx context.Context, w io.Writer) (int, error) {
	return ExportEvents(ctx, e.store, w, nil)
}
