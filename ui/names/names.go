// Package names keeps display names for the people the window shows: the
// name a person gives in their kind-0 profile, fetched on demand from the
// sync relays. It is the window's, not the engine's (SPEC §10: display
// only): kept in a file of its own, names.db, apart from the trust data; a
// profile never goes through the ingest pipeline, never reaches the heap or
// a trust answer, and is never served to clients. Kind 0 stays unsynced
// (SPEC §2). The CLI's `resolve` reads the file the window filled.
package names

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// RefreshAfter is how old a name may get before it is fetched again: at
// most one fetch per person a day.
const RefreshAfter = 24 * time.Hour

// DefaultMax bounds the cache; past it the names fetched longest ago go.
const DefaultMax = 20_000

// FileName is the cache's file in the data directory.
const FileName = "names.db"

// Cache is the display-name cache over one SQLite file.
type Cache struct {
	db  *sql.DB
	max int
	now func() time.Time

	// stop ends the background fetches (Want); Close calls it, then waits
	// for them, so none writes to a closed file or outlives the window
	ctx     context.Context
	stop    context.CancelFunc
	fetches sync.WaitGroup

	mu       sync.Mutex
	inFlight map[string]bool // pubkeys being fetched, so one person is asked for once
	closed   bool
}

// Open opens (creating if needed) the cache at path, holding at most max
// people (DefaultMax when 0).
func Open(path string, max int) (*Cache, error) {
	if max <= 0 {
		max = DefaultMax
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// fetched_at is when we last asked, found or not: a person without a
	// profile is not asked again for a day either (name "")
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS display_names (
		pubkey     TEXT PRIMARY KEY,
		name       TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		fetched_at INTEGER NOT NULL
	) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, fmt.Errorf("display-name cache %s: %w", path, err)
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Cache{db: db, max: max, now: time.Now, ctx: ctx, stop: stop, inFlight: map[string]bool{}}, nil
}

// Close stops the background fetches, waits for them, and closes the file.
func (c *Cache) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.stop()
	c.fetches.Wait()
	return c.db.Close()
}

// Names returns the known display names of pubkeys (hex), whatever their
// age; people without one are absent.
func (c *Cache) Names(pubkeys []string) (map[string]string, error) {
	out := map[string]string{}
	err := c.each(pubkeys, func(pk, name string, _ int64) {
		if name != "" {
			out[pk] = name
		}
	})
	return out, err
}

// Stale returns the pubkeys not asked for within RefreshAfter, and not
// being fetched now.
func (c *Cache) Stale(pubkeys []string) ([]string, error) {
	fresh := map[string]bool{}
	cutoff := c.now().Add(-RefreshAfter).Unix()
	if err := c.each(pubkeys, func(pk, _ string, fetchedAt int64) {
		if fetchedAt > cutoff {
			fresh[pk] = true
		}
	}); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var stale []string
	seen := map[string]bool{}
	for _, pk := range pubkeys {
		if !fresh[pk] && !c.inFlight[pk] && !seen[pk] {
			seen[pk] = true
			stale = append(stale, pk)
		}
	}
	return stale, nil
}

// each calls fn for every cached row among pubkeys.
func (c *Cache) each(pubkeys []string, fn func(pubkey, name string, fetchedAt int64)) error {
	const chunk = 500 // below SQLite's bound on variables
	for start := 0; start < len(pubkeys); start += chunk {
		part := pubkeys[start:min(start+chunk, len(pubkeys))]
		args := make([]any, len(part))
		for i, pk := range part {
			args[i] = pk
		}
		rows, err := c.db.Query(`SELECT pubkey, name, fetched_at FROM display_names WHERE pubkey IN (?`+
			strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var pk, name string
			var at int64
			if err := rows.Scan(&pk, &name, &at); err != nil {
				rows.Close()
				return err
			}
			fn(pk, name, at)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// save records what a fetch found for the people asked about: a newer
// profile replaces an older one; a person without one is recorded as asked.
// Then the cache is cut back to its bound.
func (c *Cache) save(asked []string, found map[string]Profile) error {
	tx, err := c.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := c.now().Unix()
	for _, pk := range asked {
		p := found[pk]
		if _, err := tx.Exec(`INSERT INTO display_names (pubkey, name, created_at, fetched_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (pubkey) DO UPDATE SET fetched_at = excluded.fetched_at,
				name = CASE WHEN excluded.created_at > created_at THEN excluded.name ELSE name END,
				created_at = max(created_at, excluded.created_at)`, pk, p.Name, p.CreatedAt, now); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`DELETE FROM display_names WHERE pubkey IN (
		SELECT pubkey FROM display_names ORDER BY fetched_at DESC, pubkey LIMIT -1 OFFSET ?)`, c.max); err != nil {
		return err
	}
	return tx.Commit()
}

// Len is how many people the cache holds.
func (c *Cache) Len() (int, error) {
	var n int
	err := c.db.QueryRow(`SELECT count(*) FROM display_names`).Scan(&n)
	return n, err
}

// Refresh fetches the profiles of those of pubkeys that are stale from
// relays and records them; it returns how many names it found. Each relay is
// asked in turn, with timeout per relay; one that fails is skipped.
func (c *Cache) Refresh(ctx context.Context, relays, pubkeys []string, timeout time.Duration) (int, error) {
	stale, err := c.Stale(pubkeys)
	if err != nil || len(stale) == 0 || len(relays) == 0 {
		return 0, err
	}
	c.mu.Lock()
	for _, pk := range stale {
		c.inFlight[pk] = true
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		for _, pk := range stale {
			delete(c.inFlight, pk)
		}
		c.mu.Unlock()
	}()
	found := map[string]Profile{}
	var lastErr error
	answered := false
	for _, url := range relays {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		profiles, err := fetchProfiles(rctx, url, stale)
		cancel()
		if err != nil {
			lastErr = err // one relay of several; the next is asked
			continue
		}
		answered = true
		for pk, p := range profiles {
			if p.CreatedAt > found[pk].CreatedAt {
				found[pk] = p
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	if !answered {
		return 0, lastErr // nobody asked yet: try again next time, not in a day
	}
	n := 0
	for _, p := range found {
		if p.Name != "" {
			n++
		}
	}
	return n, c.save(stale, found)
}

// wantTimeout bounds one relay's answer to a background fetch.
const wantTimeout = 10 * time.Second

// Want fetches in the background the names of those of pubkeys not asked
// for lately, from relays; fetched is called (from another goroutine) when
// it found any. After Close it does nothing.
func (c *Cache) Want(relays, pubkeys []string, fetched func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.fetches.Add(1)
	go func() {
		defer c.fetches.Done()
		ctx, cancel := context.WithTimeout(c.ctx, time.Duration(len(relays)+1)*wantTimeout)
		defer cancel()
		if n, _ := c.Refresh(ctx, relays, pubkeys, wantTimeout); n > 0 && fetched != nil {
			fetched()
		}
	}()
}
