package engine

import (
	"context"
	"slices"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/metrics"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// openRepoSync loads the repository-sync profile from the database. It
// exists before the ingest pipeline, whose checker it is part of.
func (e *Engine) openRepoSync() error {
	s := e.settings
	rs, err := reposync.New(e.ctx, reposync.Config{
		Store:     e.store,
		Sink:      repoSink{e},
		Normalize: settings.NormalizeRelayURL,
		Log:       e.log.With("part", "reposync"),
		Window:    reposync.WindowConfig{Length: e.opts.RepoWindow},
		Conn:      reposync.ConnConfig{AuthKey: e.authKey},
	}, s.RepoSyncServices, s.RepoSyncBootstrap)
	if err != nil {
		return err
	}
	e.repos = rs
	return nil
}

// eventRules is the pipeline's checker: the arrival rules every event
// meets, with the server's tag cap in force (a setting), then the trust
// rules, with the repository profile deciding every other kind. Events
// arrive only once Open has built the server.
func (e *Engine) eventRules() eventChecker {
	return eventChecker{
		maxTagBytes: func() int { return e.server.Limits().MaxTagBytes },
		Rules:       reposync.Rules{Trust: validation.Profile{Scope: e.settings.ScopeProfile}, Repos: e.repos},
	}
}

// eventChecker puts the arrival rules before the kinds' own; Admit is the
// repository profile's.
type eventChecker struct {
	maxTagBytes func() int // read at each event: the user may change it
	reposync.Rules
}

func (c eventChecker) Check(ev *nostr.Event) (any, error) {
	if err := (validation.Arrival{MaxTagBytes: c.maxTagBytes()}).Check(ev); err != nil {
		return nil, err
	}
	return c.Rules.Check(ev)
}

// repoSink feeds what the repository profile fetched into the pipeline.
type repoSink struct{ e *Engine }

func (s repoSink) Ingest(ctx context.Context, relay string, evs []*nostr.Event) (int, error) {
	return ingest.RelaySink{Pipeline: s.e.ingest, Prefix: reposync.SourcePrefix}.Ingest(ctx, relay, evs)
}

// commitRepoSettings restarts the profile when its service URLs or its
// bootstrap relay changed.
func (e *Engine) commitRepoSettings(from, to settings.Settings) {
	if slices.Equal(from.RepoSyncServices, to.RepoSyncServices) && from.RepoSyncBootstrap == to.RepoSyncBootstrap {
		return
	}
	if err := e.repos.Reconfigure(e.ctx, to.RepoSyncServices, to.RepoSyncBootstrap); err != nil {
		e.log.Warn("apply repository sync settings", "err", err)
	}
}

// RepoSyncStatus is the repository profile's status (`repo-sync status`).
func (e *Engine) RepoSyncStatus() status.RepoSync { return e.repos.Status() }

// repoHealthCode is the numeric health of dtp_repo_sync_relay_health_state:
// 1 healthy, 2 backoff (hourly retries included), 3 dead.
func repoHealthCode(h string) float64 {
	switch h {
	case status.HealthHealthy:
		return 1
	case status.HealthDead:
		return 3
	}
	return 2
}

// registerRepoMetrics exposes the repository profile as dtp_repo_sync_*
// series (SPEC §11), read fresh at each scrape.
func (e *Engine) registerRepoMetrics() {
	r := e.metrics
	connected := r.NewGauge("dtp_repo_sync_relay_connected", "1 when the sync relay is connected.", "relay")
	attempts := r.NewCopiedCounter("dtp_repo_sync_connection_attempts_total", "Connection attempts, by result.", "relay", "result")
	health := r.NewGauge("dtp_repo_sync_relay_health_state", "Health of the sync relay: 1 healthy, 2 backoff, 3 dead.", "relay")
	failures := r.NewGauge("dtp_repo_sync_relay_consecutive_failures", "Consecutive failures of the sync relay.", "relay")
	received := r.NewCopiedCounter("dtp_repo_sync_events_received_total", "Events received from the sync relay, by source.", "relay", "source")
	gaps := r.NewCopiedCounter("dtp_repo_sync_gap_events_total", "Events re-read after a reconnect to fill the gap.", "relay")
	tracked := r.NewGauge("dtp_repo_sync_relays_tracked", "Sync relays of the repository profile.")
	relaysConnected := r.NewGauge("dtp_repo_sync_relays_connected", "Sync relays connected.")
	dead := r.NewGauge("dtp_repo_sync_relays_dead", "Sync relays in the dead health state.")
	r.OnCollect(func(*metrics.Registry) {
		m := e.repos.Metrics()
		for _, g := range []metrics.Gauge{connected, attempts, health, failures, received, gaps} {
			g.Reset()
		}
		for _, rm := range m.Relays {
			connected.Set(boolFloat(rm.Connected), rm.URL)
			attempts.Set(float64(rm.AttemptsOK), rm.URL, "ok")
			attempts.Set(float64(rm.AttemptsFailed), rm.URL, "failed")
			health.Set(repoHealthCode(rm.Health), rm.URL)
			failures.Set(float64(rm.ConsecutiveFailures), rm.URL)
			for source, n := range rm.Received {
				received.Set(float64(n), rm.URL, source)
			}
			gaps.Set(float64(rm.GapEvents), rm.URL)
		}
		tracked.Set(float64(m.RelaysTracked))
		relaysConnected.Set(float64(m.RelaysConnected))
		dead.Set(float64(m.RelaysDead))
	})
}
