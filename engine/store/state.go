package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// State returns the fact recorded under key (the NIP-42 key, the last pass
// outcome, …): what the program notes about itself, not a user's setting.
func (s *Store) State(key string) (value string, ok bool, err error) {
	switch err := s.r.QueryRow(`SELECT value FROM state WHERE key = ?`, key).Scan(&value); {
	case errors.Is(err, sql.ErrNoRows):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("store: state %q: %w", key, err)
	}
	return value, true, nil
}

// SetState records value under key. Unlike SetSetting it leaves the revision
// alone: no process needs to reload settings for it.
func (s *Store) SetState(key, value string) error {
	err := s.writeTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO state (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set state %q: %w", key, err)
	}
	return nil
}
