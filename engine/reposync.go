package engine

import (
	"context"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/metrics"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// openRepoSync loads the repository-sync profile from the database. It
// exists before the ingest pipeline, whose checker it is part of.
func (e *Engine) openRepoSync() error {
	rs, err := reposync.New(e.ctx, reposync.Config{
		Store:     e.store,
		Sink:      repoSink{e},
		Normalize: settings.NormalizeRelayURL,
		Settings:  e.settings,
		AuthKey:   e.authKey,
		Log:       e.log.With("part", "reposync"),
		Window:    reposync.WindowConfig{Length: e.opts.RepoWindow},
		Removed:   e.deleted,
	})
	if err != nil {
		return err
	}
	e.repos = rs
	return nil
}

// deleted takes what a deletion (NIP-09) removed out of the trust graph,
// on the pipeline's writer after the commit (the heap's listener ran
// before, so an event and its deletion in one batch leave no edge behind).
func (e *Engine) deleted(removed []*nostr.Event) {
	if e.trust.heap.Remove(removed).HopsChanged {
		e.trust.frontier.Notify()
	}
}

// repoSink feeds what the repository profile fetched into the pipeline.
type repoSink struct{ e *Engine }

func (s repoSink) Ingest(ctx context.Context, relay string, evs []*nostr.Event) (int, error) {
	return ingest.RelaySink{Pipeline: s.e.ingest, Prefix: reposync.SourcePrefix}.Ingest(ctx, relay, evs)
}

// RepoSyncStatus is the repository profile's status (`repo-sync status`).
func (e *Engine) RepoSyncStatus() status.RepoSync { return e.repos.Status() }

// registerRepoMetrics exposes the repository profile's relays as
// dtp_repo_sync_* series (SPEC §11), read fresh at each scrape, and the
// relays announcements name that the dial policy does not dial, by reason.
func (e *Engine) registerRepoMetrics() {
	relays := registerRelayMetrics(e.metrics, "dtp_repo_sync_")
	refused := e.metrics.NewGauge("dtp_repo_sync_relays_refused",
		"Relays repository announcements name that are not dialled, by reason (dial policy, caps).", "reason")
	e.metrics.OnCollect(func(*metrics.Registry) {
		relays(e.repos.Metrics())
		refused.Reset()
		for reason, n := range e.repos.Status().RefusedByReason {
			refused.Set(float64(n), reason)
		}
	})
}
