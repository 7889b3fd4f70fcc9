package store

import (
	"database/sql"
	"fmt"
	"slices"
)

// authorChunk bounds the bound parameters per cursor statement.
const authorChunk = 500

// CursorKey names a cursor: one per relay, filter family ("trust", "ratings",
// "discovery", "claims") and author (for discovery: the X subject).
type CursorKey struct{ Relay, Scope, Author string }

// Cursor is how far a (relay, scope, author) has been synced, plus the retry
// state of its last failure (SPEC §6.4).
type Cursor struct {
	CursorKey
	LastSeenCreatedAt int64
	LastEoseAt        int64
	Attempts          int
	NextRetryAt       int64
	LastError         string
}

// Retrying reports whether the cursor carries retry state: its last fetch
// failed, and a completed one clears that.
func (c Cursor) Retrying() bool {
	return c.Attempts != 0 || c.NextRetryAt != 0 || c.LastError != ""
}

// Cursors returns the saved cursors of relay and scope for the given authors,
// keyed by author; authors without one are absent. An empty authors list
// returns every cursor of that relay and scope.
func (s *Store) Cursors(relay, scope string, authors []string) (map[string]Cursor, error) {
	const query = `SELECT author, last_seen_created_at, last_eose_at, attempts, next_retry_at, last_error
		FROM cursors WHERE relay = ? AND scope = ?`
	out := make(map[string]Cursor, len(authors))
	pick := newAuthorPicker(authors)
	var author sql.RawBytes
	err := s.eachCursorRow(query, relay, scope, authors, func(rows *sql.Rows) error {
		c := Cursor{CursorKey: CursorKey{Relay: relay, Scope: scope}}
		if err := rows.Scan(&author, &c.LastSeenCreatedAt, &c.LastEoseAt, &c.Attempts, &c.NextRetryAt, &c.LastError); err != nil {
			return err
		}
		if c.Author = pick.of(author); c.Author != "" {
			out[c.Author] = c
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: cursors of %s/%s: %w", relay, scope, err)
	}
	return out, nil
}

// Completed reports which of authors have a cursor of scope that reached
// EOSE on one of relays: a fetch of their history completed there. It reads
// the author column alone, without a string per row: at a start it answers
// for every member of a 100,000-person frontier before the first answer.
func (s *Store) Completed(relays []string, scope string, authors []string) (map[string]bool, error) {
	const query = `SELECT author FROM cursors WHERE relay = ? AND scope = ? AND last_eose_at > 0`
	out := make(map[string]bool)
	if len(authors) == 0 {
		return out, nil
	}
	for _, relay := range relays {
		pick := newAuthorPicker(authors)
		var author sql.RawBytes
		err := s.eachCursorRow(query, relay, scope, authors, func(rows *sql.Rows) error {
			if err := rows.Scan(&author); err != nil {
				return err
			}
			if a := pick.of(author); a != "" {
				out[a] = true
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("store: completed cursors of %s/%s: %w", relay, scope, err)
		}
	}
	return out, nil
}

// eachCursorRow runs query, whose first two parameters are relay and scope,
// for authors and hands scan each row. Up to cursorRangeMin authors are
// looked up by name, authorChunk at a time; more, or none, are read as the
// whole (relay, scope) range in author order, and scan picks them
// (authorPicker): looked up by name, the 100,000 members of a frontier took
// over a second of a start (issue 26).
func (s *Store) eachCursorRow(query, relay, scope string, authors []string, scan func(*sql.Rows) error) error {
	read := func(query string, args ...any) error {
		rows, err := s.r.Query(query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if len(authors) == 0 || len(authors) > cursorRangeMin {
		// the primary key (relay, scope, author) gives the order
		return read(query+" ORDER BY author", relay, scope)
	}
	for chunk := range slices.Chunk(authors, authorChunk) {
		if err := read(query+" AND author IN ("+placeholders(len(chunk))+")", append([]any{relay, scope}, anySlice(chunk)...)...); err != nil {
			return err
		}
	}
	return nil
}

// authorPicker finds a row's author among the authors asked for, as their
// own string (rows then allocate none). Rows come in author order
// (eachCursorRow), so sorted authors are merged with them; others are
// looked up in a set. No authors, or few (looked up by name), pick every
// row.
type authorPicker struct {
	all    bool
	sorted []string
	next   int
	set    map[string]string
}

func newAuthorPicker(authors []string) *authorPicker {
	switch {
	case len(authors) <= cursorRangeMin:
		return &authorPicker{all: true}
	case slices.IsSorted(authors):
		return &authorPicker{sorted: authors}
	}
	set := make(map[string]string, len(authors))
	for _, a := range authors {
		set[a] = a
	}
	return &authorPicker{set: set}
}

// of is author as one of those asked for, or "" when it is none.
func (p *authorPicker) of(author []byte) string {
	switch {
	case p.all:
		return string(author)
	case p.set != nil:
		return p.set[string(author)]
	}
	for p.next < len(p.sorted) && p.sorted[p.next] < string(author) {
		p.next++
	}
	if p.next < len(p.sorted) && p.sorted[p.next] == string(author) {
		return p.sorted[p.next]
	}
	return ""
}

// cursorRangeMin is the most authors Cursors looks up by name; more are
// picked from the whole range of their relay and scope.
const cursorRangeMin = 5000

// SaveCursors upserts cs in one transaction.
func (s *Store) SaveCursors(cs []Cursor) error {
	if len(cs) == 0 {
		return nil
	}
	err := s.writeTx(func(tx *sql.Tx) error {
		st, err := tx.Prepare(`INSERT INTO cursors (relay, scope, author, last_seen_created_at, last_eose_at,
				attempts, next_retry_at, last_error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (relay, scope, author) DO UPDATE SET
				last_seen_created_at = excluded.last_seen_created_at, last_eose_at = excluded.last_eose_at,
				attempts = excluded.attempts, next_retry_at = excluded.next_retry_at, last_error = excluded.last_error`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, c := range cs {
			if _, err := st.Exec(c.Relay, c.Scope, c.Author, c.LastSeenCreatedAt, c.LastEoseAt, c.Attempts, c.NextRetryAt, c.LastError); err != nil {
				return err
			}
		}
		return dropContradictedSweeps(tx, cs)
	})
	if err != nil {
		return fmt.Errorf("store: save %d cursors: %w", len(cs), err)
	}
	return nil
}

// DeleteCursorsForAuthors drops every cursor (all relays and scopes) of the
// given authors, so their return triggers a full fetch.
func (s *Store) DeleteCursorsForAuthors(authors []string) error {
	if len(authors) == 0 {
		return nil
	}
	err := s.writeTx(func(tx *sql.Tx) error {
		for chunk := range slices.Chunk(authors, authorChunk) {
			if _, err := tx.Exec(`DELETE FROM cursors WHERE author IN (`+placeholders(len(chunk))+`)`, anySlice(chunk)...); err != nil {
				return err
			}
		}
		// a key without a cursor is fetched in full; no record may skip it
		_, err := tx.Exec(`DELETE FROM sweeps`)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete cursors of %d authors: %w", len(authors), err)
	}
	return nil
}

// DeleteCursorsOutside drops the cursors of the given scopes whose author is
// not in keep, and returns how many it dropped. The authors holding cursors
// are read and compared with keep here: a frontier of 100,000 authors handed
// to SQLite as a set cost a start a second, to drop none.
func (s *Store) DeleteCursorsOutside(scopes, keep []string) (int64, error) {
	if len(scopes) == 0 {
		return 0, nil
	}
	held, err := s.strings(`SELECT DISTINCT author FROM cursors WHERE scope IN (`+placeholders(len(scopes))+`)`, anySlice(scopes)...)
	if err != nil {
		return 0, fmt.Errorf("store: cursor authors: %w", err)
	}
	kept := make(map[string]bool, len(keep))
	for _, a := range keep {
		kept[a] = true
	}
	var gone []string
	for _, a := range held {
		if !kept[a] {
			gone = append(gone, a)
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	var n int64
	err = s.writeTx(func(tx *sql.Tx) error {
		for chunk := range slices.Chunk(gone, authorChunk) {
			res, err := tx.Exec(`DELETE FROM cursors WHERE scope IN (`+placeholders(len(scopes))+`) AND author IN (`+placeholders(len(chunk))+`)`,
				append(anySlice(scopes), anySlice(chunk)...)...)
			if err != nil {
				return err
			}
			deleted, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += deleted
		}
		_, err := tx.Exec(`DELETE FROM sweeps WHERE scope IN (`+placeholders(len(scopes))+`)`, anySlice(scopes)...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: delete cursors outside %d authors: %w", len(keep), err)
	}
	return n, nil
}
