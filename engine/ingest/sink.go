package ingest

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
)

// RelaySink feeds events fetched from relays into the pipeline, for the sync
// profiles: each batch is submitted with source Prefix+relay and Ingest
// returns once every event is committed or refused, so a cursor never moves
// past an event not yet stored.
type RelaySink struct {
	Pipeline *Pipeline
	Prefix   string // "sync:", "reposync:"
}

// Ingest submits evs and counts those stored now; a storage failure is an
// error (the batch is retried), a refusal is not.
func (s RelaySink) Ingest(ctx context.Context, relay string, evs []*nostr.Event) (int, error) {
	results, err := s.Pipeline.SubmitAll(ctx, evs, s.Prefix+relay)
	stored := 0
	for _, r := range results {
		if r.Outcome == Stored {
			stored++
		}
		if r.Outcome == Failed && err == nil {
			err = storageError(r.Message)
		}
	}
	return stored, err
}

type storageError string

func (e storageError) Error() string { return string(e) }
