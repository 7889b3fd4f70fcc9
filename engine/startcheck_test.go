package engine

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/store"
)

// The start-up check of a large database goes on after Open returned (the
// first answers need not wait for it, issue 26), but what it finds still
// stops the engine with the damage named, and nothing is written to the
// damaged file.
func TestDamageFoundAfterOpenStopsServe(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(DatabasePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	err = fixture.NewScaleWeb(200, 1).EachUnsigned(func(evs []*nostr.Event) error {
		_, err := st.SaveBatch(evs)
		return err
	})
	if err = errors.Join(err, st.Close()); err != nil {
		t.Fatal(err)
	}
	// a clean run leaves the heap's snapshot: the next start reads no event
	openQuiet(t, dir).Close()

	// damage the page of an index nothing at the start reads
	db, err := sql.Open("sqlite", DatabasePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	var root, pageSize int64
	err = db.QueryRow(`SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master WHERE name = 'refused_ids_at'`).Scan(&root, &pageSize)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(DatabasePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	for i := (root - 1) * pageSize; i < root*pageSize; i++ {
		file[i] = 0x5a
	}
	if err := os.WriteFile(DatabasePath(dir), file, 0o600); err != nil {
		t.Fatal(err)
	}

	wait := openCheckWait
	openCheckWait = 0 // Open does not wait: as for a file whose check outlasts the wait
	defer func() { openCheckWait = wait }()
	var bad *store.BadFileError
	eng := openQuiet(t, dir)
	defer eng.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = eng.Serve(ctx)
	if ctx.Err() != nil {
		t.Fatal("Serve went on serving a damaged database")
	}
	if !errors.As(err, &bad) {
		t.Fatalf("the damage is not named: %v", err)
	}
	after, err := os.ReadFile(DatabasePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(file) {
		t.Fatal("the damaged file was written to")
	}
}
