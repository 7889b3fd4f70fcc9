package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// Outcome is what SaveBatch did with one event.
type Outcome int

const (
	Stored     Outcome = iota // written (and now the slot winner, for slotted kinds)
	Duplicate                 // an event with the same id is already held
	Superseded                // older than its slot's winner: not stored
)

func (o Outcome) String() string {
	switch o {
	case Stored:
		return "stored"
	case Duplicate:
		return "duplicate"
	case Superseded:
		return "superseded"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// SaveResult reports the outcome for one event of a batch.
type SaveResult struct {
	Outcome  Outcome
	Replaced string // id of the slot loser deleted in this transaction, "" if none
}

// writeStmts are the statements of a batch. They are prepared once on the
// writer connection and bound to each batch transaction with tx.Stmt, which
// reuses the connection's compiled statement.
type writeStmts struct {
	slotGet, slotPut, slotDropOld *sql.Stmt
	insertEvent, deleteEvent      *sql.Stmt
	indexTags, unindexTags        *sql.Stmt
	claimPut, claimRevoke         *sql.Stmt
}

func (ws *writeStmts) fields() []**sql.Stmt {
	return []**sql.Stmt{&ws.slotGet, &ws.slotPut, &ws.slotDropOld, &ws.insertEvent, &ws.deleteEvent, &ws.indexTags,
		&ws.unindexTags, &ws.claimPut, &ws.claimRevoke}
}

// writeSQL is in the order of fields. A slot's row is in author_slots, or,
// written before migration 15, in slots under the key's digest (parameter 1
// is always the slotKey): slotGet says which.
var writeSQL = []string{
	`SELECT event_id, created_at, 0 FROM author_slots WHERE slot = ?1
		UNION ALL SELECT event_id, created_at, 1 FROM slots WHERE slot = substr(?1, ` + slotDigestAt + `)
		LIMIT 1`,
	`INSERT INTO author_slots (slot, event_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT (slot) DO UPDATE SET event_id = excluded.event_id, created_at = excluded.created_at`,
	`DELETE FROM slots WHERE slot = substr(?1, ` + slotDigestAt + `)`,
	`INSERT INTO events (id, pubkey, created_at, kind, tags, content, sig)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
	`DELETE FROM events WHERE id = ? RETURNING rid, tags`,
	indexTagsSQL,
	unindexTagsSQL,
	claimPutSQL,
	claimRevokeSQL,
}

// The tag index rows of one event: the hashes come as a JSON array
// (tagHashList, parameter 1), so an event costs one statement however many
// tags it has; parameter 2 is the event's rid.
const (
	indexTagsSQL   = `INSERT OR IGNORE INTO event_tags (hash, rid) SELECT j.value, ?2 FROM json_each(?1) j`
	unindexTagsSQL = `DELETE FROM event_tags WHERE rid = ?2 AND hash IN (SELECT j.value FROM json_each(?1) j)`
)

func (ws *writeStmts) prepare(db *sql.DB) error {
	for i, dst := range ws.fields() {
		st, err := db.Prepare(writeSQL[i])
		if err != nil {
			return err
		}
		*dst = st
	}
	return nil
}

func (ws *writeStmts) close() {
	for _, st := range ws.fields() {
		if *st != nil {
			(*st).Close()
		}
	}
}

func (ws *writeStmts) bind(tx *sql.Tx) writeStmts {
	var bound writeStmts
	dst := bound.fields()
	for i, st := range ws.fields() {
		*dst[i] = tx.Stmt(*st)
	}
	return bound
}

// SaveBatch writes evs in ONE transaction: duplicate check, slot reduction
// (a newer winner deletes the loser and its tag index rows) and inserts.
// results[i] belongs to evs[i]. Events are applied in order, so an event
// losing to an earlier one of the same batch is Superseded, and an earlier
// one beaten by a later one is reported Stored but named in the later one's
// Replaced. Nothing is written if an error is returned.
func (s *Store) SaveBatch(evs []*nostr.Event) ([]SaveResult, error) {
	results := make([]SaveResult, len(evs))
	if len(evs) == 0 {
		return results, nil
	}
	err := s.writeTx(func(tx *sql.Tx) error {
		st := s.stmts.bind(tx)
		for i, ev := range evs {
			r, err := st.save(ev)
			if err != nil {
				return fmt.Errorf("event %s: %w", ev.ID, err)
			}
			results[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: save batch: %w", err)
	}
	return results, nil
}

func (st writeStmts) save(ev *nostr.Event) (SaveResult, error) {
	slot, slotted := slotKey(ev)
	var held heldSlot
	if slotted {
		var err error
		if held, err = st.getSlot(slot); err != nil {
			return SaveResult{}, err
		}
		switch {
		case held.eventID == "":
		case held.eventID == ev.ID:
			return SaveResult{Outcome: Duplicate}, nil
		case !Beats(int64(ev.CreatedAt), ev.ID, held.createdAt, held.eventID):
			return SaveResult{Outcome: Superseded}, nil
		}
	}
	loser := held.eventID
	rid, inserted, err := st.insert(ev)
	if err != nil {
		return SaveResult{}, err
	}
	if !inserted {
		return SaveResult{Outcome: Duplicate}, nil
	}
	if hashes, ok := tagHashList(ev.Tags, isIndexedTag); ok {
		if _, err := st.indexTags.Exec(hashes, rid); err != nil {
			return SaveResult{}, err
		}
	}
	if ev.Kind == validation.KindClaims {
		if err := st.recordClaims(ev); err != nil {
			return SaveResult{}, err
		}
	}
	if slotted {
		// The winner is inserted before the loser is deleted, so it never
		// reuses the loser's rowid, and deleting the loser's tag rows by
		// (hash, rid) cannot touch the winner's.
		if loser != "" {
			if err := st.deleteLoser(loser); err != nil {
				return SaveResult{}, err
			}
		}
		if err := st.putSlot(slot, held, ev); err != nil {
			return SaveResult{}, err
		}
	}
	return SaveResult{Outcome: Stored, Replaced: loser}, nil
}

// heldSlot is a slot's row: its winner's id ("" when the slot is new) and
// time, and whether the row is still in the old slots table.
type heldSlot struct {
	eventID   string
	createdAt int64
	old       bool
}

func (st writeStmts) getSlot(slot []byte) (heldSlot, error) {
	var h heldSlot
	err := st.slotGet.QueryRow(slot).Scan(&h.eventID, &h.createdAt, &h.old)
	if errors.Is(err, sql.ErrNoRows) {
		return heldSlot{}, nil
	}
	return h, err
}

// putSlot makes ev the winner of its slot, moving a row of the old table.
func (st writeStmts) putSlot(slot []byte, held heldSlot, ev *nostr.Event) error {
	if held.old {
		if _, err := st.slotDropOld.Exec(slot); err != nil {
			return err
		}
	}
	_, err := st.slotPut.Exec(slot, ev.ID, int64(ev.CreatedAt))
	return err
}

// insert adds the event row; inserted is false when the id is already held.
func (st writeStmts) insert(ev *nostr.Event) (rid int64, inserted bool, err error) {
	tags := ev.Tags
	if tags == nil {
		tags = nostr.Tags{}
	}
	tagsJSON, err := json.Marshal(tags)
	if err != nil {
		return 0, false, err
	}
	// Bound as a string so SQLite stores TEXT, not a BLOB.
	res, err := st.insertEvent.Exec(ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, string(tagsJSON), ev.Content, ev.Sig)
	if err != nil {
		return 0, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, err
	}
	rid, err = res.LastInsertId()
	return rid, err == nil, err
}

// deleteLoser removes an event and its tag index rows.
func (st writeStmts) deleteLoser(id string) error {
	var rid int64
	var tagsJSON string
	switch err := st.deleteEvent.QueryRow(id).Scan(&rid, &tagsJSON); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	tags, err := decodeTags(tagsJSON)
	if err != nil {
		return fmt.Errorf("stored tags of %s: %w", id, err)
	}
	// every letter, not only today's indexedTags: files written when all
	// letters were indexed hold rows for the others too
	if hashes, ok := tagHashList(tags, isTagLetter); ok {
		_, err = st.unindexTags.Exec(hashes, rid)
	}
	return err
}

// slotKey names the slot of a replaceable ((kind,pubkey)) or addressable
// ((kind,pubkey,d)) event: the first 8 bytes of the author's pubkey, so an
// author's slots sit together, then the first 16 bytes of the SHA-256 of
// "kind:pubkey[:d]" (short index keys; a collision would need 2^64 slots),
// which alone keyed the slots table of migration 1. ok is false for kinds
// that keep every event.
func slotKey(ev *nostr.Event) (key []byte, ok bool) {
	var name string
	switch {
	case nostr.IsAddressableKind(ev.Kind):
		name = strconv.Itoa(ev.Kind) + ":" + ev.PubKey + ":" + ev.Tags.GetD()
	case nostr.IsReplaceableKind(ev.Kind):
		name = strconv.Itoa(ev.Kind) + ":" + ev.PubKey
	default:
		return nil, false
	}
	key = make([]byte, slotAuthorBytes, slotAuthorBytes+16)
	// a pubkey that is not hex (never one that passed validation) only
	// loses the clustering
	_, _ = hex.Decode(key, []byte(ev.PubKey[:min(len(ev.PubKey), 2*slotAuthorBytes)]))
	sum := sha256.Sum256([]byte(name))
	return append(key, sum[:16]...), true
}

// slotAuthorBytes of the pubkey lead a slotKey.
const slotAuthorBytes = 8

// slotDigestAt is where a slotKey's digest starts, for SQL's substr
// (1-based): the key under which migration 1's slots table holds the slot.
var slotDigestAt = strconv.Itoa(slotAuthorBytes + 1)

// Beats reports whether event a wins its slot against b: newer created_at,
// ties to the lexically lower id.
func Beats(aAt int64, aID string, bAt int64, bID string) bool {
	if aAt != bAt {
		return aAt > bAt
	}
	return aID < bID
}

// tagHashList is the JSON array of tagHash of every tag that has a value
// and whose name is selected by named. ok is false when there is none. Repeats are harmless
// (INSERT OR IGNORE; deleting twice is a no-op). SQLite's JSON reads every
// int64 exactly.
func tagHashList(tags nostr.Tags, named func(string) bool) (list string, ok bool) {
	buf := make([]byte, 0, 256)
	for _, t := range tags {
		if len(t) >= 2 && named(t[0]) {
			if ok {
				buf = append(buf, ',')
			} else {
				buf = append(buf, '[')
			}
			buf = strconv.AppendInt(buf, tagHash(t[0], t[1]), 10)
			ok = true
		}
	}
	return string(append(buf, ']')), ok
}

// tagHash is the 64-bit FNV-1a hash of name, a zero byte and value, as a
// signed SQLite INTEGER. It is part of the file format: never change it.
func tagHash(name, value string) int64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * prime
	}
	h *= prime // the zero separator byte
	for i := 0; i < len(value); i++ {
		h = (h ^ uint64(value[i])) * prime
	}
	return int64(h)
}

// isTagLetter reports a tag name NIP-01 '#x' filters can select: one ASCII
// letter.
func isTagLetter(name string) bool {
	if len(name) != 1 {
		return false
	}
	c := name[0]
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// Has reports whether an event with this id is held.
func (s *Store) Has(id string) (bool, error) {
	var one int
	switch err := s.r.QueryRow(`SELECT 1 FROM events WHERE id = ?`, id).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: has %s: %w", id, err)
	}
	return true, nil
}

// idPage is how many ids EachID reads per statement, with idPageSQL: one
// row of ids joined by commas, since going through database/sql row by row
// was most of its cost (about a microsecond an id).
const (
	idPage    = 20000
	idPageSQL = `SELECT count(*), ifnull(group_concat(id, ','), '') FROM (SELECT id FROM events WHERE id > ? ORDER BY id LIMIT ?)`
)

// EachID calls fn with the id of every stored event, for building in-memory
// indexes. It reads the id index alone (a tenth of the table's pages), in
// pages, each a statement of its own, so no read holds the log for long (a
// reset waits for the readers in it: checkpointer.guard); an event stored
// meanwhile may or may not be seen.
func (s *Store) EachID(ctx context.Context, fn func(id string)) error {
	return s.eachID(ctx, idPage, fn)
}

func (s *Store) eachID(ctx context.Context, page int, fn func(id string)) error {
	after := ""
	for {
		var n int
		var ids string
		if err := s.r.QueryRowContext(ctx, idPageSQL, after, page).Scan(&n, &ids); err != nil {
			return fmt.Errorf("store: ids: %w", err)
		}
		for id := range strings.SplitSeq(ids, ",") {
			if id != "" {
				fn(id)
				after = id
			}
		}
		if n < page {
			return nil
		}
	}
}
