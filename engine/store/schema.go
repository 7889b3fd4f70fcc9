package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
)

// migrations are applied in order, each in its own transaction; PRAGMA
// user_version records how many have been applied. Append new steps, never
// edit a released one.
var migrations = []string{
	// 1: events, tag index, slots, configuration, sync state.
	`
CREATE TABLE events (
	rid        INTEGER PRIMARY KEY,
	id         TEXT    NOT NULL UNIQUE,
	pubkey     TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	kind       INTEGER NOT NULL,
	tags       TEXT    NOT NULL, -- JSON array of arrays
	content    TEXT    NOT NULL,
	sig        TEXT    NOT NULL
);
CREATE INDEX events_kind_created ON events(kind, created_at);
CREATE INDEX events_pubkey_kind_created ON events(pubkey, kind, created_at);

-- Tag index for NIP-01 '#x' filters: one row per distinct (name, first value)
-- of an event's single-letter tags, keyed by a 64-bit hash of the pair
-- (tagHash) so entries stay small. Queries re-check the tag itself, so a
-- hash collision can never produce a wrong answer.
CREATE TABLE event_tags (
	hash INTEGER NOT NULL,
	rid  INTEGER NOT NULL,
	PRIMARY KEY (hash, rid)
) WITHOUT ROWID;

-- Current winner of each replaceable / addressable slot, keyed by a digest of
-- "kind:pubkey" or "kind:pubkey:d" (slotDigest).
CREATE TABLE slots (
	slot       BLOB    PRIMARY KEY,
	event_id   TEXT    NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- Bumped in the same transaction as every settings / relays / roots change.
CREATE TABLE revision (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO revision (id, n) VALUES (1, 0);

CREATE TABLE relays (
	url      TEXT    PRIMARY KEY,
	added_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Health is kept for any relay we talk to (repository sync relays are not in
-- relays), so no foreign key; RemoveRelay deletes it explicitly.
CREATE TABLE relay_health (
	url                  TEXT    PRIMARY KEY,
	state                TEXT    NOT NULL,
	consecutive_failures INTEGER NOT NULL,
	first_failure_at     INTEGER NOT NULL,
	last_attempt_at      INTEGER NOT NULL,
	last_success_at      INTEGER NOT NULL,
	last_connected_at    INTEGER NOT NULL,
	next_retry_at        INTEGER NOT NULL,
	last_error           TEXT    NOT NULL,
	events_fetched       INTEGER NOT NULL,
	oldest_reached       INTEGER NOT NULL,
	newest_reached       INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE roots (
	pubkey TEXT PRIMARY KEY
) WITHOUT ROWID;

CREATE TABLE cursors (
	relay                TEXT    NOT NULL,
	scope                TEXT    NOT NULL,
	author               TEXT    NOT NULL,
	last_seen_created_at INTEGER NOT NULL,
	last_eose_at         INTEGER NOT NULL,
	attempts             INTEGER NOT NULL,
	next_retry_at        INTEGER NOT NULL,
	last_error           TEXT    NOT NULL,
	PRIMARY KEY (relay, scope, author)
) WITHOUT ROWID;
CREATE INDEX cursors_author ON cursors(author);
`,
	// 2: facts the program records about itself, apart from the user's
	// settings so that writing them does not bump the revision. The NIP-42
	// key and the last pass outcome were kept in settings until now.
	`
CREATE TABLE state (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO state (key, value) SELECT key, value FROM settings WHERE key IN ('authKey', 'lastPass');
DELETE FROM settings WHERE key IN ('authKey', 'lastPass');
`,
	// 3: identity facts the heap's X account states need (SPEC §6.3), so that
	// "revoked" and "unclaimed" survive a restart.
	`
-- Every (pubkey, X account id) pair a stored 10011 has claimed, kept after a
-- newer 10011 dropped it: what tells "revoked" from "unclaimed". Written in
-- the transaction that stores the 10011.
CREATE TABLE claim_history (
	pubkey     TEXT    NOT NULL,
	twitter_id TEXT    NOT NULL,
	claimed_at INTEGER NOT NULL, -- created_at of the latest 10011 claiming the pair
	revoked_at INTEGER NOT NULL, -- created_at of the 10011 that dropped it, 0 while claimed
	PRIMARY KEY (pubkey, twitter_id)
) WITHOUT ROWID;

-- The held 10011s' claims: stored events passed validation, so their
-- twitter_id values are valid ids.
INSERT OR IGNORE INTO claim_history (pubkey, twitter_id, claimed_at, revoked_at)
SELECT e.pubkey, substr(json_extract(t.value, '$[1]'), 12), e.created_at, 0
FROM events e, json_each(e.tags) t
WHERE e.kind = 10011 AND json_extract(t.value, '$[0]') = 'i'
	AND substr(json_extract(t.value, '$[1]'), 1, 11) = 'twitter_id:';

-- Pubkeys whose 10011 the sync asked relays for: while none is held, their
-- pairs are "unclaimed", no longer "claims-pending".
CREATE TABLE claims_fetched (
	pubkey     TEXT    PRIMARY KEY,
	fetched_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
	// 4: relay health per sync profile (health.Profile). Until now both
	// profiles saved one row per URL, overwriting each other's state where
	// they share a relay. The old row was what either profile started from,
	// so it seeds each profile that may use the relay: the trust profile for
	// the user's relays (it talks to no other), the repository profile for
	// every row (its relays come from repository announcements, not from a
	// table).
	`
-- Same columns as before, keyed by (profile, url); still no foreign key:
-- RemoveRelay deletes the trust profile's row.
CREATE TABLE relay_health_new (
	profile              TEXT    NOT NULL, -- health.Profile
	url                  TEXT    NOT NULL,
	state                TEXT    NOT NULL,
	consecutive_failures INTEGER NOT NULL,
	first_failure_at     INTEGER NOT NULL,
	last_attempt_at      INTEGER NOT NULL,
	last_success_at      INTEGER NOT NULL,
	last_connected_at    INTEGER NOT NULL,
	next_retry_at        INTEGER NOT NULL,
	last_error           TEXT    NOT NULL,
	events_fetched       INTEGER NOT NULL,
	oldest_reached       INTEGER NOT NULL,
	newest_reached       INTEGER NOT NULL,
	PRIMARY KEY (profile, url)
) WITHOUT ROWID;
INSERT INTO relay_health_new (profile, url, state, consecutive_failures, first_failure_at,
	last_attempt_at, last_success_at, last_connected_at, next_retry_at, last_error,
	events_fetched, oldest_reached, newest_reached)
SELECT p.profile, h.url, h.state, h.consecutive_failures, h.first_failure_at,
	h.last_attempt_at, h.last_success_at, h.last_connected_at, h.next_retry_at, h.last_error,
	h.events_fetched, h.oldest_reached, h.newest_reached
FROM relay_health h, (SELECT 'trust' AS profile UNION ALL SELECT 'repository') p
WHERE p.profile = 'repository' OR h.url IN (SELECT url FROM relays);
DROP TABLE relay_health;
ALTER TABLE relay_health_new RENAME TO relay_health;
`,
	// 5: NIP-40 expirations of stored events, kept by triggers, so that
	// reads leave out expired events from the indexes alone (servedWhere)
	// instead of reading every event's tags.
	`
CREATE TABLE expirations (
	rid        INTEGER PRIMARY KEY, -- events.rid
	expires_at INTEGER NOT NULL     -- the first expiration tag's value
);
CREATE INDEX expirations_at ON expirations(expires_at);
CREATE TRIGGER events_expiration_insert AFTER INSERT ON events
WHEN instr(NEW.tags, '"expiration"') > 0
BEGIN
	INSERT OR REPLACE INTO expirations (rid, expires_at)
	SELECT NEW.rid, CAST(j.value ->> 1 AS INTEGER) FROM json_each(NEW.tags) j
	WHERE j.value ->> 0 = 'expiration' ORDER BY j.key LIMIT 1;
END;
CREATE TRIGGER events_expiration_delete AFTER DELETE ON events
BEGIN
	DELETE FROM expirations WHERE rid = OLD.rid;
END;
INSERT INTO expirations (rid, expires_at)
SELECT e.rid, (SELECT CAST(j.value ->> 1 AS INTEGER) FROM json_each(e.tags) j
	WHERE j.value ->> 0 = 'expiration' ORDER BY j.key LIMIT 1) AS at
FROM events e WHERE instr(e.tags, '"expiration"') > 0 AND at IS NOT NULL;
`,
	// 6: what NIP-77 did in each relay's last full refresh (health.Health
	// RefreshNIP77, RefreshIDs, RefreshBytes), so a status read by another
	// process than the sync's shows it; the relay's NIP-11 limits as last
	// read (MaxSubscriptions, MaxLimit, MaxMessageLength).
	`
ALTER TABLE relay_health ADD COLUMN refresh_nip77      TEXT    NOT NULL DEFAULT '';
ALTER TABLE relay_health ADD COLUMN refresh_ids        INTEGER NOT NULL DEFAULT 0;
ALTER TABLE relay_health ADD COLUMN refresh_bytes      INTEGER NOT NULL DEFAULT 0;
ALTER TABLE relay_health ADD COLUMN max_subscriptions  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE relay_health ADD COLUMN max_limit          INTEGER NOT NULL DEFAULT 0;
ALTER TABLE relay_health ADD COLUMN max_message_length INTEGER NOT NULL DEFAULT 0;
`,
	// 7: repository sync's resume point per relay (health.Health CaughtUpAt,
	// CaughtUpFor, CommittedAt), so a restart does not re-read every held
	// event.
	`
ALTER TABLE relay_health ADD COLUMN caught_up_at  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE relay_health ADD COLUMN caught_up_for TEXT    NOT NULL DEFAULT '';
ALTER TABLE relay_health ADD COLUMN committed_at  INTEGER NOT NULL DEFAULT 0;
`,
	// 8: how many of the events fetched from a relay were new to us when
	// they arrived (health.Health EventsStored), shown beside those received.
	`
ALTER TABLE relay_health ADD COLUMN events_stored INTEGER NOT NULL DEFAULT 0;
`,
	// 9: since when each author of held trust events has been outside the
	// network the answers use (SetOutsiders), so pruning can wait N days.
	`
CREATE TABLE outsiders (
	pubkey TEXT    PRIMARY KEY,
	since  INTEGER NOT NULL -- unix time it was first seen outside
) WITHOUT ROWID;
`,
	// 10: the generation of what the trust graph is built from (events, the
	// claim history, the fetched claims), moved by every change to them
	// whoever makes it, and the database's own random id: together they name
	// the state a heap snapshot was written from (Store.HeapState).
	`
CREATE TABLE heap_state (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	database   TEXT    NOT NULL,
	generation INTEGER NOT NULL
);
INSERT INTO heap_state (id, database, generation) VALUES (1, lower(hex(randomblob(16))), 0);
CREATE TRIGGER events_heap_insert AFTER INSERT ON events
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER events_heap_delete AFTER DELETE ON events
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER events_heap_update AFTER UPDATE ON events
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER claim_history_heap_insert AFTER INSERT ON claim_history
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER claim_history_heap_delete AFTER DELETE ON claim_history
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER claim_history_heap_update AFTER UPDATE ON claim_history
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER claims_fetched_heap_insert AFTER INSERT ON claims_fetched
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER claims_fetched_heap_delete AFTER DELETE ON claims_fetched
BEGIN UPDATE heap_state SET generation = generation + 1; END;
CREATE TRIGGER claims_fetched_heap_update AFTER UPDATE ON claims_fetched
BEGIN UPDATE heap_state SET generation = generation + 1; END;
`,
	// 11: ids of fetched events refused for what they are, never for what
	// we hold (NoteRefused), so a daily NIP-77 catch-up does not download
	// them again.
	`
CREATE TABLE refused_ids (
	id         TEXT    PRIMARY KEY,
	reason     TEXT    NOT NULL,
	refused_at INTEGER NOT NULL -- unix time
) WITHOUT ROWID;
CREATE INDEX refused_ids_at ON refused_ids(refused_at);
`,
	// 12: which root events' threads repository sync last asked each relay
	// for in full (health.Health CoveredRoots, a digest), so roots stored
	// while stopped or owed at the stop are fetched at the next start.
	`
ALTER TABLE relay_health ADD COLUMN covered_roots TEXT NOT NULL DEFAULT '';
`,
	// 13: the author index also holds each event's id, so the stamps a
	// NIP-77 reconciliation reads (created_at, id, pubkey of an author's
	// kinds) come from the index alone: reading each event's row for its id
	// was most of a daily refresh with nothing new at 100,000 authors
	// (issue 26). It replaces the index it extends.
	`
CREATE INDEX events_author_stamps ON events(pubkey, kind, created_at, id);
DROP INDEX events_pubkey_kind_created;
`,
	// 14: sweeps: a set of keys whose cursors of a relay and family all
	// completed on one UTC day, so a pass with nothing new need not read
	// each key's cursor (issue 26). A record is only a shortcut: deleting
	// every row loses nothing.
	`
CREATE TABLE sweeps (
	relay    TEXT    NOT NULL,
	scope    TEXT    NOT NULL,
	keys_sum BLOB    NOT NULL,
	day      INTEGER NOT NULL,
	checked  INTEGER NOT NULL,
	PRIMARY KEY (relay, scope, keys_sum)
) WITHOUT ROWID;
`,
	// 15: slots keyed by their author first (slotKey), so that the slots of
	// one author's events, which a pull receives together, share leaf pages:
	// keyed by the digest alone, every event of a first sync read and wrote
	// a page of its own, at random (issue 26). The rows of slots stay where
	// they are and are read where author_slots has none; a write moves its
	// slot's row here. (slots cannot be re-keyed: a slot whose winner was
	// withdrawn or superseded holds the id of an event not stored, so its
	// author is not known.)
	`
CREATE TABLE author_slots (
	slot       BLOB    PRIMARY KEY,
	event_id   TEXT    NOT NULL,
	created_at INTEGER NOT NULL
) WITHOUT ROWID;
`,
}

// migrate brings the schema up to date. Each step re-reads user_version inside
// its write transaction, so two processes opening a fresh file at once apply
// every step exactly once.
func migrate(db *sql.DB) error {
	if err := incrementalWhenNew(db); err != nil {
		return err
	}
	for {
		tx, err := beginRetryingBusy(db)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		var version int
		if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			tx.Rollback()
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > len(migrations) {
			tx.Rollback()
			return fmt.Errorf("schema version %d is newer than this program supports (%d)", version, len(migrations))
		}
		if version == len(migrations) {
			return tx.Rollback()
		}
		if _, err := tx.Exec(migrations[version]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", version+1, err)
		}
		// PRAGMA takes no bound parameters; version is our own integer.
		if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", version+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", version+1, err)
		}
	}
}

// incrementalWhenNew gives a new, empty file incremental auto-vacuum, so
// that pages freed by removing events (prune, delete) can be given back to
// the disk without rewriting the file. The mode is fixed once a table
// exists (switching an existing file takes a full VACUUM: Compact); on an
// empty file the VACUUM that applies it costs nothing.
func incrementalWhenNew(db *sql.DB) error {
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil || tables > 0 {
		return err
	}
	return retryingBusy(func() error {
		_, err := db.Exec(`PRAGMA auto_vacuum = INCREMENTAL; VACUUM`)
		return err
	})
}

// sqliteBusy is SQLITE_BUSY, the primary result code of a lock conflict.
const sqliteBusy = 5

// beginRetryingBusy starts the migration transaction. The first connection to
// a fresh file switches it to WAL, which needs an exclusive lock and fails
// with SQLITE_BUSY at once (busy_timeout does not apply) when another process
// is opening the same file, so that is retried (retryingBusy).
func beginRetryingBusy(db *sql.DB) (tx *sql.Tx, err error) {
	err = retryingBusy(func() error {
		tx, err = db.Begin()
		return err
	})
	return tx, err
}

// retryingBusy runs op again while it fails with SQLITE_BUSY, until the busy
// timeout: for the locks that fail at once whatever busy_timeout says (a
// switch to WAL, WAL recovery by another opener).
func retryingBusy(op func() error) error {
	deadline := time.Now().Add(busyTimeoutMillis * time.Millisecond)
	for {
		err := op()
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
