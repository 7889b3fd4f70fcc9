package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// What removing events (prune, delete by filter) needs of the store: the
// authors of trust events, when each was first seen outside the network,
// the events a filter matches with their size, the removal itself, and
// giving the freed pages back to the disk.

// TrustAuthors are the authors of every held trust event (32009, 32014,
// 10011), sorted.
func (s *Store) TrustAuthors(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT pubkey FROM events WHERE kind IN (?, ?, ?) ORDER BY pubkey`,
		validation.KindTrust, validation.KindRating, validation.KindClaims)
	if err != nil {
		return nil, fmt.Errorf("store: trust authors: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("store: trust authors: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetOutsiders records that the given authors are outside the network now:
// one first seen outside keeps its time, one new to the list gets now, and
// those no longer listed (back inside, or holding nothing) are forgotten.
// It returns since when each listed author has been outside.
func (s *Store) SetOutsiders(outside []string, now int64) (map[string]int64, error) {
	list, _ := json.Marshal(nonNilStrings(outside))
	since := make(map[string]int64, len(outside))
	err := s.writeTx(func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM outsiders WHERE pubkey NOT IN (SELECT j.value FROM json_each(?1) j)`, string(list)); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT OR IGNORE INTO outsiders (pubkey, since) SELECT j.value, ?2 FROM json_each(?1) j`, string(list), now); err != nil {
			return err
		}
		rows, err := tx.Query(`SELECT pubkey, since FROM outsiders`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p string
			var at int64
			if err := rows.Scan(&p, &at); err != nil {
				return err
			}
			since[p] = at
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: record outsiders: %w", err)
	}
	return since, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// EachMatching calls fn with every stored event f matches (its limit
// ignored; expired events too) and the bytes its row takes, in storage
// order, a page at a time; fn holds no database resources.
func (s *Store) EachMatching(ctx context.Context, f nostr.Filter, fn func(ev *nostr.Event, size int64) error) error {
	w := filterWhere(f)
	if w.none {
		return nil
	}
	w.conds = append(w.conds, "e.rid > ?")
	q := "SELECT e.rid, " + eventColumns + " FROM " + w.from + w.sql() + " ORDER BY e.rid LIMIT ?"
	var after int64
	for {
		page, last, err := s.readPage(ctx, q, append(slices.Clone(w.args), after, scanPageSize)...)
		if err != nil {
			return fmt.Errorf("store: match %v: %w", f, err)
		}
		for _, ev := range page {
			if err := fn(ev, EventSize(ev)); err != nil {
				return err
			}
		}
		if len(page) < scanPageSize {
			return nil
		}
		after = last
	}
}

// EventSize is about the bytes an event's row takes: its text columns as
// stored and its three integers.
func EventSize(ev *nostr.Event) int64 {
	tags, _ := json.Marshal(ev.Tags)
	return int64(len(ev.ID) + len(ev.PubKey) + len(tags) + len(ev.Content) + len(ev.Sig) + 3*8)
}

// DeleteEvents removes the events with these ids in one transaction: each
// row, its tag index rows (its expiration by trigger) and its slot when it
// is the slot's winner, so an older event of the slot may be stored again.
// It returns the events it removed (ids not held are skipped).
func (s *Store) DeleteEvents(ids []string) ([]*nostr.Event, error) {
	return s.deleteEvents(ids, false)
}

// DeleteRequested removes the events a deletion request (NIP-09) names, as
// DeleteEvents does, except that a removed slot winner's slot keeps its id
// and time, as Supersede's does: an older event of the slot is never
// stored again (SPEC §2.3: a statement its author withdrew is never revived
// by an older one), a newer one is.
func (s *Store) DeleteRequested(ids []string) ([]*nostr.Event, error) {
	return s.deleteEvents(ids, true)
}

func (s *Store) deleteEvents(ids []string, keepSlots bool) ([]*nostr.Event, error) {
	var removed []*nostr.Event
	err := s.writeTx(func(tx *sql.Tx) error {
		st := s.stmts.bind(tx)
		get, err := tx.Prepare(`SELECT ` + eventColumns + ` FROM events e WHERE e.id = ?`)
		if err != nil {
			return err
		}
		defer get.Close()
		for _, id := range ids {
			var row eventRow
			switch err := get.QueryRow(id).Scan(row.dest()...); {
			case errors.Is(err, sql.ErrNoRows):
				continue
			case err != nil:
				return err
			}
			ev := new(nostr.Event)
			if err := row.event(ev); err != nil {
				return err
			}
			if err := st.deleteLoser(id); err != nil {
				return err
			}
			if slot, slotted := slotKey(ev); slotted && !keepSlots {
				if _, err := tx.Exec(`DELETE FROM author_slots WHERE slot = ?1 AND event_id = ?2`, slot, id); err != nil {
					return err
				}
				if _, err := tx.Exec(`DELETE FROM slots WHERE slot = substr(?1, `+slotDigestAt+`) AND event_id = ?2`, slot, id); err != nil {
					return err
				}
			}
			removed = append(removed, ev)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete %d events: %w", len(ids), err)
	}
	return removed, nil
}

// VacuumMode is the file's auto_vacuum: "incremental" lets ReleaseFreePages
// give freed pages back to the disk; "none" keeps them for new events until
// Compact rewrites the file.
func (s *Store) VacuumMode() (string, error) {
	var mode int
	if err := s.r.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return "", fmt.Errorf("store: auto_vacuum: %w", err)
	}
	switch mode {
	case 0:
		return "none", nil
	case 1:
		return "full", nil
	}
	return "incremental", nil
}

// releaseStep bounds the pages one incremental_vacuum moves, so the write
// it makes (and the write-ahead log) stays small and a batch of events
// waits for the writer at most that long.
const releaseStep = 1024

// ReleaseFreePages gives the file's free pages back to the disk, a step at
// a time, where the file is in incremental mode, and checkpoints so the file
// shrinks; it returns how many pages it gave back. Without incremental mode
// the free pages stay in the file, where new events reuse them.
func (s *Store) ReleaseFreePages(ctx context.Context) (int64, error) {
	if mode, err := s.VacuumMode(); err != nil || mode != "incremental" {
		return 0, err
	}
	var released int64
	for ctx.Err() == nil {
		var free int64
		if err := s.w.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
			return released, fmt.Errorf("store: free pages: %w", err)
		}
		if free == 0 {
			break
		}
		s.ckpt.guard() // each step is a write of its own, moving up to a step of pages through the log
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, min(free, releaseStep))); err != nil {
			return released, fmt.Errorf("store: incremental vacuum: %w", err)
		}
		s.ckpt.committed()
		released += min(free, releaseStep)
	}
	return released, s.CheckpointNow(ctx)
}

// CheckpointNow copies the write-ahead log back into the database file now,
// trying again for up to two seconds while a reader still needs older
// frames, so that FileSize tells what the data takes; a file that shrank is
// cut short by the checkpoint that completes. Passive: it never holds up
// readers or the writer.
func (s *Store) CheckpointNow(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Second)
	for {
		var busy, frames, copied int
		err := s.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
		// busy: a reader still needs older frames, or another
		// connection's checkpoint was running
		if err != nil || busy == 0 && copied >= frames || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Compact rewrites the whole file (VACUUM), switching it to incremental
// auto-vacuum first: what an existing file needs once before
// ReleaseFreePages can shrink it. It holds the writer for the rewrite
// (about 30 s per GB), the write-ahead log grows to the file's size
// meanwhile, and it needs that much free disk.
func (s *Store) Compact(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL; VACUUM`); err != nil {
		s.noteFull(err)
		return fmt.Errorf("store: compact: %w", err)
	}
	_, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// FileSize is the bytes of the database file (without its write-ahead log).
func (s *Store) FileSize() int64 {
	info, err := os.Stat(s.path)
	if err != nil {
		return 0
	}
	return info.Size()
}
