package store

import (
	"context"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// Stamp is what NIP-77 reconciles of an event: its created_at and id.
type Stamp struct {
	CreatedAt nostr.Timestamp
	ID        string
}

// Stamps returns the stamps of the events matching f, newest first, at most
// min(f.Limit, max) as Query counts them; it reads only the two columns, so
// a set of hundreds of thousands costs no event decoding.
func (s *Store) Stamps(ctx context.Context, f nostr.Filter, max int) ([]Stamp, error) {
	q, args, ok := querySQL("e.created_at, e.id", f, max)
	if !ok {
		return nil, nil
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: stamps %s: %w", f, err)
	}
	defer rows.Close()
	var out []Stamp
	for rows.Next() {
		var st Stamp
		if err := rows.Scan(&st.CreatedAt, &st.ID); err != nil {
			return nil, fmt.Errorf("store: stamps %s: %w", f, err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}
