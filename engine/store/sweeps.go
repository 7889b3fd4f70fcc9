package store

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
)

// Sweep records that every key of one set had its cursor of (Relay, Scope)
// completed on the UTC day Day, none earlier than Checked, and that none of
// those cursors failed since. A pass with nothing new then asks the relay
// what arrived since Checked without reading each key's cursor: at 100,000
// people those reads were a third of such a pass (issue 26).
//
// The store keeps a record true: saving a cursor of (Relay, Scope) in retry
// state, or completed before Day, drops the records it could belong to, and
// so does deleting cursors. A record is only a shortcut, and losing
// one costs a pass that reads the cursors.
type Sweep struct {
	Relay, Scope string
	Keys         KeysSum
	Day          int64 // UTC day: unix seconds / 86400
	Checked      int64 // unix seconds
}

// KeysSum names a set of keys: the SHA-256 of the sorted keys, each ended
// by a newline.
type KeysSum [sha256.Size]byte

// SumKeys is the KeysSum of sorted, distinct keys.
func SumKeys(keys []string) KeysSum {
	h := sha256.New()
	// written a buffer at a time: two writes per key were most of the sum
	buf := make([]byte, 0, 64<<10)
	for _, k := range keys {
		if len(buf)+len(k)+1 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(append(buf, k...), '\n')
	}
	h.Write(buf)
	var sum KeysSum
	h.Sum(sum[:0])
	return sum
}

// Sweep returns the record of keys on relay and scope for day, if there
// is one.
func (s *Store) Sweep(relay, scope string, keys KeysSum, day int64) (Sweep, bool, error) {
	sw := Sweep{Relay: relay, Scope: scope, Keys: keys, Day: day}
	found, err := readSweep(s.r, &sw)
	if err != nil || !found {
		return Sweep{}, false, err
	}
	return sw, true, nil
}

// readSweep reads sw's Checked, the record of its relay, scope, keys and
// day, through q (the readers, or a write transaction).
func readSweep(q interface {
	QueryRow(query string, args ...any) *sql.Row
}, sw *Sweep) (found bool, err error) {
	err = q.QueryRow(`SELECT checked FROM sweeps WHERE relay = ? AND scope = ? AND keys_sum = ? AND day = ?`,
		sw.Relay, sw.Scope, sw.Keys[:], sw.Day).Scan(&sw.Checked)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: sweep of %s/%s: %w", sw.Relay, sw.Scope, err)
	}
	return true, nil
}

// SaveSweep records sw and forgets the records of its relay and scope from
// earlier days.
func (s *Store) SaveSweep(sw Sweep) error {
	if err := s.writeTx(func(tx *sql.Tx) error { return putSweep(tx, sw) }); err != nil {
		return fmt.Errorf("store: save sweep of %s/%s: %w", sw.Relay, sw.Scope, err)
	}
	return nil
}

// SaveSweepOf records sw, the union of parts (sets recorded as swept on
// sw's relay, scope and day, the earliest Checked among them), when every
// part is still recorded: a cursor that failed since dropped its part, and
// the union is then not swept either. It reports whether sw was recorded.
func (s *Store) SaveSweepOf(sw Sweep, parts []KeysSum) (bool, error) {
	saved := false
	err := s.writeTx(func(tx *sql.Tx) error {
		for _, keys := range parts {
			part := Sweep{Relay: sw.Relay, Scope: sw.Scope, Keys: keys, Day: sw.Day}
			if found, err := readSweep(tx, &part); err != nil || !found {
				return err
			}
		}
		saved = true
		return putSweep(tx, sw)
	})
	if err != nil {
		return false, fmt.Errorf("store: save sweep of %s/%s: %w", sw.Relay, sw.Scope, err)
	}
	return saved, nil
}

func putSweep(tx *sql.Tx, sw Sweep) error {
	if _, err := tx.Exec(`DELETE FROM sweeps WHERE relay = ? AND scope = ? AND day < ?`, sw.Relay, sw.Scope, sw.Day); err != nil {
		return err
	}
	_, err := tx.Exec(`INSERT INTO sweeps (relay, scope, keys_sum, day, checked) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (relay, scope, keys_sum) DO UPDATE SET day = excluded.day, checked = excluded.checked`,
		sw.Relay, sw.Scope, sw.Keys[:], sw.Day, sw.Checked)
	return err
}

// dropContradictedSweeps drops, inside the transaction that saves cs, the
// records a saved cursor contradicts: all of its relay and scope when it is
// in retry state, else those of a later day than its last EOSE (a cursor
// set back, as a test of the daily refresh does).
func dropContradictedSweeps(tx *sql.Tx, cs []Cursor) error {
	earliest := map[[2]string]int64{} // relay and scope → earliest day a saved cursor completed
	for _, c := range cs {
		at := [2]string{c.Relay, c.Scope}
		day := c.LastEoseAt / 86400
		if c.Retrying() {
			day = -1
		}
		if d, ok := earliest[at]; !ok || day < d {
			earliest[at] = day
		}
	}
	for at, day := range earliest {
		if _, err := tx.Exec(`DELETE FROM sweeps WHERE relay = ? AND scope = ? AND day > ?`, at[0], at[1], day); err != nil {
			return err
		}
	}
	return nil
}
