package store

import (
	"context"
	"database/sql"
	"fmt"
	"iter"

	"github.com/nbd-wtf/go-nostr"
)

// Stamp is what NIP-77 reconciles of an event: its created_at and id.
type Stamp struct {
	CreatedAt nostr.Timestamp
	ID        string
}

func (s Stamp) stamp() Stamp { return s }

// StampPairs yields each stamp as (created_at, id): the local side of a
// NIP-77 reconciliation.
func StampPairs[S interface{ stamp() Stamp }](stamps []S) iter.Seq2[nostr.Timestamp, string] {
	return func(yield func(nostr.Timestamp, string) bool) {
		for _, s := range stamps {
			if st := s.stamp(); !yield(st.CreatedAt, st.ID) {
				return
			}
		}
	}
}

// AuthoredStamp is a stamp with its event's author and tags, for callers
// that keep cursors per author or per tag value (the sync's reconciled
// refresh).
type AuthoredStamp struct {
	Stamp
	PubKey string
	Tags   nostr.Tags
}

// Stamps returns the stamps of the served events matching f, at most
// min(f.Limit, max) as Query counts them; it reads only the two columns, so
// a set of hundreds of thousands costs no event decoding. With a limit they
// are the newest, newest first; without one they come in no particular
// order (more than max match: some max of them). A reconciliation sorts its
// set itself, and sorting a filter over many authors was a third of the
// query.
func (s *Store) Stamps(ctx context.Context, f nostr.Filter, max int) ([]Stamp, error) {
	var out []Stamp
	err := s.eachStamp(ctx, "e.created_at, e.id", servedWhere(f), f, max, func(rows *sql.Rows) error {
		var st Stamp
		err := rows.Scan(&st.CreatedAt, &st.ID)
		out = append(out, st)
		return err
	})
	return out, err
}

// AuthoredStamps is Stamps with each event's author, and its tags when
// withTags is set (reading and decoding them is most of the query's cost).
func (s *Store) AuthoredStamps(ctx context.Context, f nostr.Filter, max int, withTags bool) ([]AuthoredStamp, error) {
	columns := "e.created_at, e.id, e.pubkey"
	if withTags {
		columns += ", e.tags"
	}
	var out []AuthoredStamp
	err := s.eachStamp(ctx, columns, filterWhere(f), f, max, func(rows *sql.Rows) error {
		var st AuthoredStamp
		var tags string
		dest := []any{&st.CreatedAt, &st.ID, &st.PubKey}
		if withTags {
			dest = append(dest, &tags)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		var err error
		if withTags {
			st.Tags, err = decodeTags(tags)
		}
		out = append(out, st)
		return err
	})
	return out, err
}

func (s *Store) eachStamp(ctx context.Context, columns string, w whereClause, f nostr.Filter, max int, scan func(*sql.Rows) error) error {
	order := newestFirst
	if f.Limit == 0 {
		order = ""
	}
	q, args, ok := selectSQL(columns, w, f, max, order)
	if !ok {
		return nil
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("store: stamps %s: %w", f, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("store: stamps %s: %w", f, err)
		}
	}
	return rows.Err()
}
