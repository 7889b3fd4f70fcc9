package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/health"
)

// Setting returns the value stored under key.
func (s *Store) Setting(key string) (value string, ok bool, err error) { return setting(s.r, key) }

// ConfigTx is what a configuration change may read and write inside its
// transaction (Configure). It is an alias of an interface literal so that
// settings.Tx, declared the same way, is the identical type.
type ConfigTx = interface {
	Setting(key string) (value string, ok bool, err error)
	SetSetting(key, value string) error
	Relays() ([]string, error)
	AddRelay(url string) error
	RemoveRelay(url string) error
	Roots() ([]string, error)
	AddRoot(hex string) error
	RemoveRoot(hex string) error
}

// Configure runs edit in one write transaction: what it reads is what it
// changes (another process's change waits for the transaction), a reader
// sees all of it or none, and the revision increases once if anything
// changed. Nothing is written when edit fails.
func (s *Store) Configure(edit func(ConfigTx) error) error {
	return s.writeTx(func(tx *sql.Tx) error {
		c := &configTx{tx: tx}
		if err := edit(c); err != nil {
			return err
		}
		if !c.changed {
			return nil
		}
		return bumpRevision(tx)
	})
}

// Revision is a counter that increases with every change to settings, relays
// or roots, from this process or any other sharing the file.
func (s *Store) Revision() (int64, error) {
	var n int64
	if err := s.r.QueryRow(`SELECT n FROM revision WHERE id = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: revision: %w", err)
	}
	return n, nil
}

func bumpRevision(tx *sql.Tx) error {
	_, err := tx.Exec(`UPDATE revision SET n = n + 1 WHERE id = 1`)
	return err
}

// configTx is ConfigTx on one transaction; changed records whether any
// statement changed a row.
type configTx struct {
	tx      *sql.Tx
	changed bool
}

func (c *configTx) exec(query string, args ...any) error {
	res, err := c.tx.Exec(query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	c.changed = c.changed || n > 0
	return err
}

func (c *configTx) Setting(key string) (value string, ok bool, err error) {
	return setting(c.tx, key)
}

func (c *configTx) SetSetting(key, value string) error {
	err := c.exec(`INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE settings.value IS NOT excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("store: set setting %q: %w", key, err)
	}
	return nil
}

func (c *configTx) Relays() ([]string, error) { return relays(c.tx) }

// AddRelay adds a sync relay; adding one already present changes nothing.
func (c *configTx) AddRelay(url string) error {
	if url == "" {
		return errors.New("store: add relay: empty url")
	}
	if err := c.exec(`INSERT INTO relays (url, added_at) VALUES (?, ?) ON CONFLICT (url) DO NOTHING`, url, time.Now().Unix()); err != nil {
		return fmt.Errorf("store: add relay %s: %w", url, err)
	}
	return nil
}

// RemoveRelay removes a sync relay together with its cursors and its trust
// profile health; the repository profile's health of the same URL stays (the
// relay may still be listed by a repository).
func (c *configTx) RemoveRelay(url string) error {
	if err := c.exec(`DELETE FROM relays WHERE url = ?`, url); err != nil {
		return fmt.Errorf("store: remove relay %s: %w", url, err)
	}
	if _, err := c.tx.Exec(`DELETE FROM cursors WHERE relay = ?`, url); err != nil {
		return fmt.Errorf("store: remove relay %s: %w", url, err)
	}
	if _, err := c.tx.Exec(`DELETE FROM sweeps WHERE relay = ?`, url); err != nil {
		return fmt.Errorf("store: remove relay %s: %w", url, err)
	}
	if _, err := c.tx.Exec(`DELETE FROM relay_health WHERE profile = ? AND url = ?`, health.ProfileTrust, url); err != nil {
		return fmt.Errorf("store: remove relay %s: %w", url, err)
	}
	return nil
}

func (c *configTx) Roots() ([]string, error) { return roots(c.tx) }

// AddRoot adds a configured root (64 lower-case hex characters).
func (c *configTx) AddRoot(hex string) error {
	if !nostr.IsValid32ByteHex(hex) {
		return fmt.Errorf("store: add root %q: not a 64-character lower-case hex pubkey", hex)
	}
	if err := c.exec(`INSERT INTO roots (pubkey) VALUES (?) ON CONFLICT (pubkey) DO NOTHING`, hex); err != nil {
		return fmt.Errorf("store: add root %s: %w", hex, err)
	}
	return nil
}

// RemoveRoot removes a configured root; removing an absent one changes nothing.
func (c *configTx) RemoveRoot(hex string) error {
	if err := c.exec(`DELETE FROM roots WHERE pubkey = ?`, hex); err != nil {
		return fmt.Errorf("store: remove root %s: %w", hex, err)
	}
	return nil
}

// querier is a read pool or a transaction.
type querier interface {
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

func setting(q querier, key string) (value string, ok bool, err error) {
	switch err := q.QueryRow(`SELECT value FROM settings WHERE key = ?`, key).Scan(&value); {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store: setting %q: %w", key, err)
	}
	return value, true, nil
}

func relays(q querier) ([]string, error) {
	relays, err := queryStrings(q, `SELECT url FROM relays ORDER BY url`)
	if err != nil {
		return nil, fmt.Errorf("store: relays: %w", err)
	}
	return relays, nil
}

func roots(q querier) ([]string, error) {
	roots, err := queryStrings(q, `SELECT pubkey FROM roots ORDER BY pubkey`)
	if err != nil {
		return nil, fmt.Errorf("store: roots: %w", err)
	}
	return roots, nil
}

// Relays lists the sync relays, sorted.
func (s *Store) Relays() ([]string, error) { return relays(s.r) }

// SaveRelayHealth upserts h as profile p's health of h.URL (SPEC §6.5). Any relay may have
// health, listed in Relays or not (repository sync relays are not).
func (s *Store) SaveRelayHealth(p health.Profile, h health.Health) error {
	err := s.writeTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO relay_health (profile, url, state, consecutive_failures, first_failure_at,
				last_attempt_at, last_success_at, last_connected_at, next_retry_at, last_error,
				events_fetched, oldest_reached, newest_reached, refresh_nip77, refresh_ids, refresh_bytes,
				max_subscriptions, max_limit, max_message_length, caught_up_at, caught_up_for, committed_at,
				events_stored, covered_roots)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (profile, url) DO UPDATE SET state = excluded.state,
				consecutive_failures = excluded.consecutive_failures, first_failure_at = excluded.first_failure_at,
				last_attempt_at = excluded.last_attempt_at, last_success_at = excluded.last_success_at,
				last_connected_at = excluded.last_connected_at, next_retry_at = excluded.next_retry_at,
				last_error = excluded.last_error, events_fetched = excluded.events_fetched,
				oldest_reached = excluded.oldest_reached, newest_reached = excluded.newest_reached,
				refresh_nip77 = excluded.refresh_nip77, refresh_ids = excluded.refresh_ids,
				refresh_bytes = excluded.refresh_bytes, max_subscriptions = excluded.max_subscriptions,
				max_limit = excluded.max_limit, max_message_length = excluded.max_message_length,
				caught_up_at = excluded.caught_up_at, caught_up_for = excluded.caught_up_for,
				committed_at = excluded.committed_at, events_stored = excluded.events_stored,
				covered_roots = excluded.covered_roots`,
			p, h.URL, h.State, h.ConsecutiveFailures, h.FirstFailureAt, h.LastAttemptAt, h.LastSuccessAt,
			h.LastConnectedAt, h.NextRetryAt, h.LastError, h.EventsFetched, h.OldestReached, h.NewestReached,
			h.RefreshNIP77, h.RefreshIDs, h.RefreshBytes, h.MaxSubscriptions, h.MaxLimit, h.MaxMessageLength,
			h.CaughtUpAt, h.CaughtUpFor, h.CommittedAt, h.EventsStored, h.CoveredRoots)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: save %s health of %s: %w", p, h.URL, err)
	}
	return nil
}

// PruneRelayHealth deletes profile p's health of every relay not in keep:
// a profile forgets the relays it no longer syncs with.
func (s *Store) PruneRelayHealth(p health.Profile, keep []string) error {
	urls, err := json.Marshal(append([]string{}, keep...)) // nil would be JSON null, which keeps nothing
	if err != nil {
		return fmt.Errorf("store: prune %s health: %w", p, err)
	}
	// looked for first: every start prunes, and a write would wait for the
	// start-up check of the database (up to 2 s of a large one's start)
	const gone = `FROM relay_health WHERE profile = ? AND url NOT IN (SELECT value FROM json_each(?))`
	var found int
	switch err := s.r.QueryRow(`SELECT count(*) FROM (SELECT 1 `+gone+` LIMIT 1)`, p, string(urls)).Scan(&found); {
	case err != nil:
		return fmt.Errorf("store: prune %s health: %w", p, err)
	case found == 0:
		return nil
	}
	err = s.writeTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE `+gone, p, string(urls))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: prune %s health: %w", p, err)
	}
	return nil
}

// RelayHealth returns profile p's saved health of url; ok is false if none was saved.
func (s *Store) RelayHealth(p health.Profile, url string) (health.Health, bool, error) {
	h := health.Health{URL: url}
	err := s.r.QueryRow(`SELECT state, consecutive_failures, first_failure_at, last_attempt_at,
			last_success_at, last_connected_at, next_retry_at, last_error, events_fetched,
			oldest_reached, newest_reached, refresh_nip77, refresh_ids, refresh_bytes,
			max_subscriptions, max_limit, max_message_length, caught_up_at, caught_up_for, committed_at,
			events_stored, covered_roots
		FROM relay_health WHERE profile = ? AND url = ?`, p, url).Scan(&h.State, &h.ConsecutiveFailures, &h.FirstFailureAt,
		&h.LastAttemptAt, &h.LastSuccessAt, &h.LastConnectedAt, &h.NextRetryAt, &h.LastError,
		&h.EventsFetched, &h.OldestReached, &h.NewestReached, &h.RefreshNIP77, &h.RefreshIDs, &h.RefreshBytes,
		&h.MaxSubscriptions, &h.MaxLimit, &h.MaxMessageLength, &h.CaughtUpAt, &h.CaughtUpFor, &h.CommittedAt,
		&h.EventsStored, &h.CoveredRoots)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return health.Health{}, false, nil
	case err != nil:
		return health.Health{}, false, fmt.Errorf("store: %s health of %s: %w", p, url, err)
	}
	return h, true, nil
}

// Roots lists the configured roots, sorted.
func (s *Store) Roots() ([]string, error) { return roots(s.r) }

// strings runs a one-column query on the read pool.
func (s *Store) strings(query string, args ...any) ([]string, error) {
	return queryStrings(s.r, query, args...)
}

// queryStrings runs a one-column query.
func queryStrings(q querier, query string, args ...any) ([]string, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
