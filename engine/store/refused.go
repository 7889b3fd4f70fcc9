package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
)

// RefusedKeep is how long a refused id is remembered.
const RefusedKeep = 30 * 86400

// NoteRefused remembers fetched events refused for what they are (id →
// the refusal's words) at now, and forgets those remembered longer than
// RefusedKeep.
func (s *Store) NoteRefused(refused map[string]string, now int64) error {
	if len(refused) == 0 {
		return nil
	}
	err := s.writeTx(func(tx *sql.Tx) error {
		for id, reason := range refused {
			if _, err := tx.Exec(`INSERT OR REPLACE INTO refused_ids (id, reason, refused_at) VALUES (?, ?, ?)`, id, reason, now); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`DELETE FROM refused_ids WHERE refused_at < ?`, now-RefusedKeep)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: note refused ids: %w", err)
	}
	return nil
}

// RefusedAmong is the ids among ids that NoteRefused remembers, with why.
func (s *Store) RefusedAmong(ids []string) (map[string]string, error) {
	list, _ := json.Marshal(nonNilStrings(ids))
	rows, err := s.r.Query(`SELECT id, reason FROM refused_ids WHERE id IN (SELECT j.value FROM json_each(?) j)`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: refused ids: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, reason string
		if err := rows.Scan(&id, &reason); err != nil {
			return nil, fmt.Errorf("store: refused ids: %w", err)
		}
		out[id] = reason
	}
	return out, rows.Err()
}
