package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nbd-wtf/go-nostr"
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
	slotGet, slotPut         *sql.Stmt
	insertEvent, deleteEvent *sql.Stmt
}

func (ws *writeStmts) fields() []**sql.Stmt {
	return []**sql.Stmt{&ws.slotGet, &ws.slotPut, &ws.insertEvent, &ws.deleteEvent}
}

// writeSQL is in the order of fields.
var writeSQL = []string{
	`SELECT event_id, created_at FROM slots WHERE slot = ?`,
	`INSERT INTO slots (slot, event_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT (slot) DO UPDATE SET event_id = excluded.event_id, created_at = excluded.created_at`,
	`INSERT INTO events (id, pubkey, created_at, kind, tags, content, sig)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
	`DELETE FROM events WHERE id = ?`,
}

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
// (a newer winner deletes the loser; triggers drop its tag rows) and inserts. results[i]
// belongs to evs[i]. Events are applied in order, so an event losing to an
// earlier one of the same batch is Superseded, and an earlier one beaten by a
// later one is reported Stored but named in the later one's Replaced.
// Nothing is written if an error is returned.
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
	var loser string
	if slotted {
		var winnerID string
		var winnerAt int64
		switch err := st.slotGet.QueryRow(slot).Scan(&winnerID, &winnerAt); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return SaveResult{}, err
		case winnerID == ev.ID:
			return SaveResult{Outcome: Duplicate}, nil
		case !beats(int64(ev.CreatedAt), ev.ID, winnerAt, winnerID):
			return SaveResult{Outcome: Superseded}, nil
		default:
			loser = winnerID
		}
	}
	inserted, err := st.insert(ev)
	if err != nil {
		return SaveResult{}, err
	}
	if !inserted {
		return SaveResult{Outcome: Duplicate}, nil
	}
	if slotted {
		// The winner is inserted before the loser is deleted, so SQLite cannot
		// hand the loser's rowid to the winner.
		if loser != "" {
			if _, err := st.deleteEvent.Exec(loser); err != nil {
				return SaveResult{}, err
			}
		}
		if _, err := st.slotPut.Exec(slot, ev.ID, int64(ev.CreatedAt)); err != nil {
			return SaveResult{}, err
		}
	}
	return SaveResult{Outcome: Stored, Replaced: loser}, nil
}

// insert adds the event row (triggers index its tags); inserted is false
// when the id is already held.
func (st writeStmts) insert(ev *nostr.Event) (inserted bool, err error) {
	tags := ev.Tags
	if tags == nil {
		tags = nostr.Tags{}
	}
	tagsJSON, err := json.Marshal(tags)
	if err != nil {
		return false, err
	}
	// Bound as a string so SQLite stores TEXT, not a BLOB.
	res, err := st.insertEvent.Exec(ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, string(tagsJSON), ev.Content, ev.Sig)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// slotKey names the slot of a replaceable ((kind,pubkey)) or addressable
// ((kind,pubkey,d)) event; ok is false for kinds that keep every event.
func slotKey(ev *nostr.Event) (key string, ok bool) {
	switch {
	case nostr.IsAddressableKind(ev.Kind):
		return strconv.Itoa(ev.Kind) + ":" + ev.PubKey + ":" + ev.Tags.GetD(), true
	case nostr.IsReplaceableKind(ev.Kind):
		return strconv.Itoa(ev.Kind) + ":" + ev.PubKey, true
	}
	return "", false
}

// beats reports whether event a wins its slot against b: newer created_at,
// ties to the lexically lower id.
func beats(aAt int64, aID string, bAt int64, bID string) bool {
	if aAt != bAt {
		return aAt > bAt
	}
	return aID < bID
}

// isTagLetter reports a tag name the tag index holds: one ASCII letter
// (the same rule as the events_index_tags trigger).
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
