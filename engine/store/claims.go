package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// The claim history rows of one stored 10011 (parameter 1 its pubkey, 2 its
// created_at, 3 the JSON array of the X account ids it claims): the claimed
// pairs are (re)claimed, the author's other claimed pairs are revoked.
const (
	claimPutSQL = `INSERT INTO claim_history (pubkey, twitter_id, claimed_at, revoked_at)
		SELECT ?1, j.value, ?2, 0 FROM json_each(?3) j WHERE true
		ON CONFLICT (pubkey, twitter_id) DO UPDATE SET claimed_at = excluded.claimed_at, revoked_at = 0`
	claimRevokeSQL = `UPDATE claim_history SET revoked_at = ?2
		WHERE pubkey = ?1 AND revoked_at = 0 AND twitter_id NOT IN (SELECT j.value FROM json_each(?3) j)`
)

// recordClaims writes the claim history of a 10011 that just became its
// author's slot winner, in the transaction that stores it. The store keeps
// what ingest accepted, so an event that does not parse claims nothing here,
// as it does in the heap.
func (st writeStmts) recordClaims(ev *nostr.Event) error {
	c, err := validation.ParseClaims(ev)
	if err != nil {
		return nil
	}
	ids, err := json.Marshal(append([]string{}, c.TwitterIDs...))
	if err != nil {
		return err
	}
	if _, err := st.claimPut.Exec(c.Author, c.CreatedAt, string(ids)); err != nil {
		return err
	}
	_, err = st.claimRevoke.Exec(c.Author, c.CreatedAt, string(ids))
	return err
}

// EachClaimedPair calls fn with every (pubkey, X account id) pair a stored
// 10011 has claimed, including pairs a newer 10011 revoked.
func (s *Store) EachClaimedPair(ctx context.Context, fn func(pubkey, twitterID string)) error {
	rows, err := s.r.QueryContext(ctx, `SELECT pubkey, twitter_id FROM claim_history`)
	if err != nil {
		return fmt.Errorf("store: claim history: %w", err)
	}
	defer rows.Close()
	var pubkey, twitterID string
	for rows.Next() {
		if err := rows.Scan(&pubkey, &twitterID); err != nil {
			return fmt.Errorf("store: claim history: %w", err)
		}
		fn(pubkey, twitterID)
	}
	return rows.Err()
}

// RecordClaimsFetched records that the relays were asked for these pubkeys'
// 10011 at unix time at.
func (s *Store) RecordClaimsFetched(pubkeys []string, at int64) error {
	if len(pubkeys) == 0 {
		return nil
	}
	list, err := json.Marshal(pubkeys)
	if err != nil {
		return err
	}
	// through writeTx, so a full disk here pauses sync like any other write
	err = s.writeTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO claims_fetched (pubkey, fetched_at) SELECT j.value, ?2 FROM json_each(?1) j WHERE true
		ON CONFLICT (pubkey) DO UPDATE SET fetched_at = excluded.fetched_at`, string(list), at)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: record fetched claims: %w", err)
	}
	return nil
}

// ClaimsFetched lists the pubkeys whose 10011 the relays were asked for.
func (s *Store) ClaimsFetched() ([]string, error) {
	pubkeys, err := s.strings(`SELECT pubkey FROM claims_fetched ORDER BY pubkey`)
	if err != nil {
		return nil, fmt.Errorf("store: fetched claims: %w", err)
	}
	return pubkeys, nil
}
