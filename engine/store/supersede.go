package store

import (
	"database/sql"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// Supersede ends a slot without storing its newest event: the held winner,
// if ev beats it, is deleted, and the slot remembers ev's id and time, so an
// older event of the slot is never stored again. Repository sync uses it when
// an owner's newer announcement no longer lists this server: the refused
// announcement ends the repository. It returns the deleted winner's id, ""
// when nothing was held or ev does not beat it.
func (s *Store) Supersede(ev *nostr.Event) (string, error) {
	slot, slotted := slotKey(ev)
	if !slotted {
		return "", fmt.Errorf("store: supersede: kind %d has no slot", ev.Kind)
	}
	var ended string
	err := s.writeTx(func(tx *sql.Tx) error {
		st := s.stmts.bind(tx)
		held, err := st.getSlot(slot)
		switch {
		case err != nil:
			return err
		case held.eventID == "":
		case !Beats(int64(ev.CreatedAt), ev.ID, held.createdAt, held.eventID):
			return nil
		default:
			if err := st.deleteLoser(held.eventID); err != nil {
				return err
			}
			ended = held.eventID
		}
		return st.putSlot(slot, held, ev)
	})
	if err != nil {
		return "", fmt.Errorf("store: supersede %s: %w", ev.ID, err)
	}
	return ended, nil
}
