package reposync

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
	"dtp-personal/engine/relay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
)

// SourcePrefix marks events this profile fetched ("reposync:<relay>"): only
// those are kept aside when refused, since a pushing client hears its
// refusal and may send again.
const SourcePrefix = "reposync:"

// Store is what the profile needs of the database (*store.Store fits).
type Store interface {
	// Scan reads stored events by kind (start-up: the index and the plan).
	Scan(ctx context.Context, kinds []int, fn func(*nostr.Event) error) error
	relay.HealthStore
	PruneRelayHealth(p health.Profile, keep []string) error
	Supersede(ev *nostr.Event) (ended string, err error)
	// Query and DeleteEvents find and remove what a deletion (NIP-09) names.
	Query(ctx context.Context, f nostr.Filter, max int) ([]*nostr.Event, error)
	DeleteRequested(ids []string) ([]*nostr.Event, error)
	// Stamps are the held events matching f, for the daily catch-up's NIP-77.
	Stamps(ctx context.Context, f nostr.Filter, max int) ([]store.Stamp, error)
	// NoteRefused and RefusedAmong remember fetched events refused for what
	// they are (refused.go).
	NoteRefused(refused map[string]string, now int64) error
	RefusedAmong(ids []string) (map[string]string, error)
}

// Sink takes fetched events: it returns once they are committed or refused.
type Sink interface {
	Ingest(ctx context.Context, relay string, evs []*nostr.Event) (stored int, err error)
}

// Config wires a Syncer. Zero values take the defaults.
type Config struct {
	Store     Store
	Sink      Sink
	Normalize Normalizer
	// Settings are the settings at start (our services, the bootstrap
	// relay, the page timeout); changes come through ApplySettings.
	Settings settings.Settings
	AuthKey  string           // NIP-42 key of the data directory
	Live     relay.LiveTuning // live queue and ingest batch, as trust sync's
	Clock    clock.Clock      // default: the wall clock
	Log      *slog.Logger     // default: slog.Default()
	Window   WindowConfig
	// Removed is told what a deletion (NIP-09) removed from the store, on
	// the pipeline's writer after the batch's commit: trust events leave the
	// trust graph. nil: nobody else holds events.
	Removed func([]*nostr.Event)
}

// WindowConfig sizes the self-subscriber's window and the events kept aside.
type WindowConfig struct {
	Length   time.Duration // default 5 s, GRASP-02's window
	AsideMax int           // default 10 000 events
	AsideTTL time.Duration // default 10 minutes
}

// Syncer is the repository-sync profile: acceptance for the ingest
// pipeline, the self-subscriber on its commits, and one connection per sync
// relay.
type Syncer struct {
	cfg   Config
	aside *aside
	links *relay.Links // health of the sync relays, saved in the store

	pageTimeout atomic.Int64 // nanoseconds, as last applied; read at each connection

	refusedDials dialRefusals // relays whose last dial the policy refused
	refused      refusedIDs   // fetched events refused for what they are, not yet written
	deleters     deleters     // authors of held deletions

	mu        sync.Mutex
	ix        *index
	plan      *plan
	policy    dialPolicy // where announcements may make us connect; read at each dial
	bootstrap string
	window    *window
	paused    bool // Pause: no connection while the disk is full
	runCtx    context.Context
	relays    relay.Supervisor[*repoRelay] // one per sync relay, each started and stopped on its own
	counts    map[string]*relayCounts      // per relay, kept across reconnects and reconfigurations
}

// New loads the profile's state from the database for the settings' service
// URLs and bootstrap relay ("" = none). Nothing connects until Run.
func New(ctx context.Context, cfg Config) (*Syncer, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Wall{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Window.Length <= 0 {
		cfg.Window.Length = windowLength
	}
	if cfg.Window.AsideMax <= 0 {
		cfg.Window.AsideMax = asideMax
	}
	if cfg.Window.AsideTTL <= 0 {
		cfg.Window.AsideTTL = asideTTL
	}
	s := &Syncer{cfg: cfg, aside: newAside(cfg.Clock, cfg.Window.AsideMax, cfg.Window.AsideTTL),
		counts: map[string]*relayCounts{}, policy: policyOf(cfg.Settings)}
	s.setPageTimeout(cfg.Settings.Limits)
	options := relay.OptionsFor(cfg.AuthKey, func() time.Duration {
		return time.Duration(s.pageTimeout.Load())
	}, cfg.Log)
	s.links = relay.NewLinks(cfg.Store, health.ProfileRepository, func(url string) relay.Options {
		o := options(url)
		o.Check = s.dialPolicy().check(url, &s.refusedDials) // the policy at this dial
		return o
	}, cfg.Clock, cfg.Log)
	if err := s.load(ctx, cfg.Settings.RepoSyncServices, cfg.Settings.RepoSyncBootstrap); err != nil {
		return nil, err
	}
	if err := s.deleters.load(ctx, cfg.Store); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.track() // also drops the health of relays that left while we were not running
	s.mu.Unlock()
	return s, nil
}

func (s *Syncer) load(ctx context.Context, services []string, bootstrap string) error {
	if len(services) == 0 {
		bootstrap = "" // the profile is off: nothing to discover
	}
	ix, plan, err := load(ctx, s.cfg.Store, services, bootstrap, s.dialPolicy(), s.cfg.Normalize)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.ix, s.plan, s.bootstrap = ix, plan, bootstrap
	s.mu.Unlock()
	return nil
}

// track gives the plan's relays links and forgets the health, in memory and
// stored, of every other relay: a relay no repository lists any more is not
// shown, and starts afresh if one lists it again. Callers hold mu (so no
// relay joins meanwhile) and have stopped the other relays' connections,
// which save their health as they end.
func (s *Syncer) track() {
	relays := s.plan.Relays()
	s.links.Track(relays)
	if err := s.cfg.Store.PruneRelayHealth(health.ProfileRepository, relays); err != nil {
		s.cfg.Log.Warn("forget the health of relays no longer synced", "err", err)
	}
}

func (s *Syncer) index() *index {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ix
}

func (s *Syncer) dialPolicy() dialPolicy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policy
}

// Enabled reports whether the profile is on (this server's public relay
// URL is set): it then decides every kind that is not a trust kind.
func (s *Syncer) Enabled() bool { return s.index().Enabled() }

// Admit is the ingest pipeline's acceptance check for every kind that is
// not a trust kind; ev's signature is already verified. A refused event this
// profile fetched is kept aside when what it depends on may still arrive;
// an owner's newer announcement that no longer lists us ends its repository.
//
// A deletion naming events of its author not held yet is kept when pushed
// (stored, so they are refused when they arrive) and set aside when
// fetched, like every fetched event that waits for another.
func (s *Syncer) Admit(ev *nostr.Event, source string) error {
	relay, fetched := strings.CutPrefix(source, SourcePrefix)
	var err error
	if ev.Kind == KindDeletion {
		err = s.admitDeletion(ev)
	} else if err = s.index().Admit(ev); err == nil {
		err = s.NotDeleted(ev)
	}
	var r *refusal
	if !errors.As(err, &r) {
		return err
	}
	if ev.Kind == KindDeletion && len(r.Wants) > 0 && !fetched {
		return nil
	}
	if r.Ends != nil {
		if _, serr := s.cfg.Store.Supersede(ev); serr != nil {
			return serr
		}
		s.learn(*s.index().End(r.Ends.Ref()))
		s.cfg.Log.Info("repository no longer lists this server; stopped keeping it", "repo", r.Ends.Ref())
	}
	if fetched {
		s.aside.Keep(ev, relay, r.Wants)
	}
	return err
}

// Committed is the self-subscriber: every committed batch, pulled or
// pushed, in commit order. The index learns at once (acceptance needs it);
// the plan learns when the window closes. Events kept aside for what just
// landed are tried again.
func (s *Syncer) Committed(evs []*nostr.Event) {
	ix := s.index()
	waiting := s.aside.Len() > 0
	var changes []change
	var woken []string
	var deletions []*nostr.Event
	for _, ev := range evs {
		c, wake := ix.Apply(ev)
		if c != nil {
			changes = append(changes, *c)
		}
		woken = append(woken, wake...)
		if ev.Kind == KindDeletion {
			deletions = append(deletions, ev)
			s.deleters.add(ev.PubKey)
		}
		if !isRootKind(ev.Kind) {
			woken = append(woken, ev.ID) // a deletion kept aside may name it (a root's id is woken above)
		}
		if nostr.IsAddressableKind(ev.Kind) && waiting {
			woken = append(woken, coordinate{Kind: ev.Kind, Pubkey: ev.PubKey, D: ev.Tags.GetD()}.String()) // or by coordinate
		}
	}
	s.learn(changes...)
	s.applyDeletions(deletions)
	if len(woken) == 0 {
		return
	}
	retry, relays := s.aside.Wake(woken)
	if len(retry) == 0 {
		return
	}
	byRelay := map[string][]*nostr.Event{}
	for i, ev := range retry {
		byRelay[relays[i]] = append(byRelay[relays[i]], ev)
	}
	// not on the writer goroutine that calls listeners: Ingest waits for a commit
	go func() {
		for relay, evs := range byRelay {
			if _, err := s.cfg.Sink.Ingest(s.context(), relay, evs); err != nil {
				s.cfg.Log.Warn("retry events kept aside", "relay", relay, "err", err)
			}
		}
	}()
}

// learn hands changes to the window; while nothing runs (before Run, or in
// a CLI process that never serves) the plan takes them at once.
func (s *Syncer) learn(cs ...change) {
	s.mu.Lock()
	w := s.window
	if w == nil {
		s.plan.Apply(cs)
	}
	s.mu.Unlock()
	if w != nil {
		w.Add(cs...)
	}
}

func (s *Syncer) context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runCtx == nil {
		return context.Background()
	}
	return s.runCtx
}

// Run connects to every sync relay and follows the plan until ctx ends.
func (s *Syncer) Run(ctx context.Context) {
	s.mu.Lock()
	s.runCtx = ctx
	s.window = newWindow(ctx, s.cfg.Clock, s.cfg.Window.Length, s.flush)
	s.startAll()
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	stopped := s.relays.RemoveAll()
	s.window = nil
	s.mu.Unlock()
	stopped()
	if err := s.saveRefused(); err != nil { // those noted since the last fetch's end
		s.cfg.Log.Warn("remember refused events", "err", err)
	}
}

// ApplySettings is the engine's settings path (it hands every part the
// settings before and after a change): a new page timeout is used from each
// relay's next connection; new service URLs or a new bootstrap relay
// reconfigure the profile; a new dial policy (local relays, the caps, the
// user's own relays) reassigns the sync relays, and each relay's next dial
// is checked by it.
func (s *Syncer) ApplySettings(from, to settings.Settings) {
	s.setPageTimeout(to.Limits)
	policy := policyOf(to)
	s.mu.Lock()
	changed := !reflect.DeepEqual(s.policy, policy)
	s.policy = policy
	s.mu.Unlock()
	if !slices.Equal(from.RepoSyncServices, to.RepoSyncServices) || from.RepoSyncBootstrap != to.RepoSyncBootstrap {
		if err := s.reconfigure(s.context(), to.RepoSyncServices, to.RepoSyncBootstrap); err != nil {
			s.cfg.Log.Warn("apply repository sync settings", "err", err)
		}
		return
	}
	if changed {
		s.mu.Lock()
		s.plan.SetPolicy(policy)
		s.applyDeltas(s.plan.Apply(nil))
		s.mu.Unlock()
	}
}

func (s *Syncer) setPageTimeout(l settings.Limits) {
	s.pageTimeout.Store(int64(time.Duration(l.PageTimeoutSeconds) * time.Second))
}

// reconfigure applies new service URLs or a new bootstrap relay: the state
// is rebuilt from the database (which repositories are held depends on the
// services) and every connection restarts with its new filters.
func (s *Syncer) reconfigure(ctx context.Context, services []string, bootstrap string) error {
	if err := s.load(ctx, services, bootstrap); err != nil {
		return err
	}
	s.mu.Lock()
	stopped := s.relays.RemoveAll()
	running := s.window != nil
	s.mu.Unlock()
	stopped()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.track()
	if running {
		s.startAll()
	}
	return nil
}

// startAll opens a connection per sync relay. Callers hold mu.
func (s *Syncer) startAll() {
	for _, relay := range s.plan.Relays() {
		s.start(relay)
	}
}

// start opens relay's connection with its full filters, unless the
// profile is paused. Callers hold mu.
func (s *Syncer) start(relay string) {
	if s.paused {
		return
	}
	counts := s.counts[relay]
	if counts == nil {
		counts = &relayCounts{}
		s.counts[relay] = counts
	}
	s.relays.Add(s.runCtx, relay, newRepoRelay(s, relay, counts, relayFilters(s.plan, s.ix, relay)))
}

// Pause stops every connection while paused is true (the disk is full:
// fetched events could not be stored) and reopens them from the plan when it
// ends. The plan keeps learning meanwhile.
func (s *Syncer) Pause(paused bool) {
	s.mu.Lock()
	if s.paused == paused {
		s.mu.Unlock()
		return
	}
	s.paused = paused
	stopped := func() {}
	if paused {
		stopped = s.relays.RemoveAll()
	} else if s.window != nil {
		s.startAll()
	}
	s.mu.Unlock()
	stopped()
}

// flush is the end of a window: the plan learns the changes and each
// touched relay's connection is opened, extended, shrunk or closed.
func (s *Syncer) flush(cs []change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.window == nil {
		return
	}
	s.applyDeltas(s.plan.Apply(cs))
}

// applyDeltas opens, extends, shrinks or closes each relay's connection as
// the plan's deltas say. Callers hold mu; outside Run it only keeps the
// links' list current.
func (s *Syncer) applyDeltas(deltas []relayDelta) {
	if s.window == nil {
		s.track()
		return
	}
	var closed []string
	left := false
	for _, d := range deltas {
		c, running := s.relays.Get(d.Relay)
		switch {
		case d.Close:
			left = true
			closed = append(closed, d.Relay)
		case d.Open || !running:
			s.start(d.Relay)
		default:
			full := relayFilters(s.plan, s.ix, d.Relay)
			restated := slices.DeleteFunc(d.State, func(ref repoRef) bool { return slices.Contains(d.Refs, ref) }) // Refs bring their state filters
			c.update(append(filters(d.Refs, d.Roots, s.ix.Maintainers, false), stateFilters(restated, s.ix.Maintainers)...), full, d.Shrunk)
		}
	}
	if left {
		go s.forget(s.relays.Remove(closed...)) // not under mu: a stopping connection may wait for a commit, whose listener takes mu
	}
}

// forget waits for the connections of relays that left the plan to end,
// then forgets those relays' health.
func (s *Syncer) forget(stopped func()) {
	stopped()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.track()
}

// Status is the profile's status.
func (s *Syncer) Status() status.RepoSync {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := status.RepoSync{
		Enabled: s.ix.Enabled(), Paused: s.paused, Services: s.ix.Services(), Bootstrap: s.bootstrap,
		Repos: len(s.plan.Repos()), RootEvents: s.plan.RootCount(), KeptAside: s.aside.Len(),
		Repositories: []status.Repository{}, Relays: []status.RepoRelay{},
	}
	for _, ref := range s.plan.Repos() {
		a, _ := s.ix.Announcement(ref)
		st.Repositories = append(st.Repositories, status.Repository{
			Ref: string(ref), ID: a.D, Name: a.Name, Owner: a.Owner,
			RootEvents: len(s.plan.Roots(ref)), Relays: s.plan.RepoRelays(ref),
		})
	}
	for _, c := range s.relays.All() {
		r := c.status()
		r.Bootstrap = c.url == s.bootstrap
		r.Repos = len(s.plan.RelayRepos(c.url))
		st.Relays = append(st.Relays, r)
	}
	s.refusedStatus(&st)
	return st
}

// refusedStatus adds the dial policy to st: the relays announcements name
// that are not dialled (by the plan, or refused when dialled), counted by
// reason and the first status.MaxRefusedListed listed. Callers hold mu.
func (s *Syncer) refusedStatus(st *status.RepoSync) {
	st.LocalRelays, st.MaxRelays, st.MaxRelaysPerRepo = s.policy.allowLocal, s.policy.maxRelays, s.policy.maxPerRepo
	st.RefusedByReason, st.RefusedRelays = map[string]int{}, []status.RefusedRelay{}
	refused := s.plan.Refused()
	for _, url := range s.plan.Relays() {
		if s.refusedDials.get(url) != "" {
			refused = append(refused, status.RefusedRelay{URL: url, Reason: RefusedResolves, Repos: len(s.plan.RelayRepos(url))})
		}
	}
	slices.SortFunc(refused, func(a, b status.RefusedRelay) int { return strings.Compare(a.URL, b.URL) })
	for _, r := range refused {
		st.RefusedByReason[r.Reason]++
		if len(st.RefusedRelays) < status.MaxRefusedListed {
			st.RefusedRelays = append(st.RefusedRelays, r)
		}
	}
}
