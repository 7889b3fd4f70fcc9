package trustsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

// memSink keeps the slot winner of every event it is given (a stand-in for
// the ingest pipeline: no signature work).
type memSink struct {
	mu    sync.Mutex
	byID  map[string]*nostr.Event
	slots map[string]*nostr.Event
	// afterIngest runs after a batch stored something (outside the lock),
	// as the engine recomputes its frontier after ingest.
	afterIngest func()
	delay       atomic.Int64 // per batch, nanoseconds: a slow pipeline
	failing     atomic.Bool  // every batch fails, as with a broken database
	// persist, when set, also stores every batch (for reconciliation,
	// which reads what is held from the store)
	persist *store.Store
}

var errSinkBroken = errors.New("database is broken (test)")

func newMemSink() *memSink {
	return &memSink{byID: map[string]*nostr.Event{}, slots: map[string]*nostr.Event{}}
}

func slotOf(ev *nostr.Event) string {
	switch {
	case ev.Kind >= 30000 && ev.Kind < 40000:
		return ev.PubKey + ":" + ev.Tags.GetD() + ":" + string(rune(ev.Kind))
	case ev.Kind >= 10000 && ev.Kind < 20000:
		return ev.PubKey + ":" + string(rune(ev.Kind))
	}
	return ev.ID
}

func (s *memSink) Ingest(_ context.Context, _ string, evs []*nostr.Event) (int, error) {
	time.Sleep(time.Duration(s.delay.Load()))
	if s.failing.Load() {
		return 0, errSinkBroken
	}
	if s.persist != nil {
		if _, err := s.persist.SaveBatch(evs); err != nil {
			return 0, err
		}
	}
	stored := s.keep(evs)
	if stored > 0 && s.afterIngest != nil {
		s.afterIngest()
	}
	return stored, nil
}

func (s *memSink) keep(evs []*nostr.Event) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored := 0
	for _, ev := range evs {
		if _, dup := s.byID[ev.ID]; dup {
			continue
		}
		slot := slotOf(ev)
		if old, ok := s.slots[slot]; ok {
			if old.CreatedAt > ev.CreatedAt || (old.CreatedAt == ev.CreatedAt && old.ID < ev.ID) {
				continue
			}
			delete(s.byID, old.ID)
		}
		s.slots[slot], s.byID[ev.ID] = ev, ev
		stored++
	}
	return stored
}

func (s *memSink) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		for id := range s.byID {
			if !yield(id) {
				return
			}
		}
	})
}

func (s *memSink) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.byID[id]
	return ok
}

// bfsFrontier walks active positive p-hops of held 32009 winners from roots.
type bfsFrontier struct {
	sink     *memSink
	roots    []string
	maxDepth int
	clock    func() time.Time

	mu            sync.Mutex
	authors       []string
	claimsFetched []string
	changed       chan struct{}
	hintsRead     atomic.Int64 // HintedPubkeys calls
	// candidatesOnce: a pubkey whose claims were asked for is no longer a
	// claim candidate, as with the heap (most tests ask every pass)
	candidatesOnce bool
}

func newFrontier(sink *memSink, roots ...string) *bfsFrontier {
	f := &bfsFrontier{sink: sink, roots: roots, maxDepth: 4, clock: time.Now, changed: make(chan struct{})}
	f.recompute()
	sink.afterIngest = f.recompute
	return f
}

func (f *bfsFrontier) recompute() {
	now := f.clock().Unix()
	f.sink.mu.Lock()
	edges := map[string][]string{}
	for _, ev := range f.sink.byID {
		if ev.Kind != 32009 {
			continue
		}
		p, v := ev.Tags.Find("p"), ev.Tags.Find("v")
		if p == nil || v == nil || v[1] != "1" {
			continue
		}
		if y := ev.Tags.Find("y"); y != nil {
			if until, _ := strconv.ParseInt(y[1], 10, 64); until < now {
				continue
			}
		}
		edges[ev.PubKey] = append(edges[ev.PubKey], p[1])
	}
	f.sink.mu.Unlock()
	seen := map[string]bool{}
	level := slices.Clone(f.roots)
	for depth := 0; depth <= f.maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, a := range level {
			if seen[a] {
				continue
			}
			seen[a] = true
			next = append(next, edges[a]...)
		}
		level = next
	}
	authors := slices.Sorted(func(yield func(string) bool) {
		for a := range seen {
			if !yield(a) {
				return
			}
		}
	})
	f.mu.Lock()
	if !slices.Equal(authors, f.authors) {
		close(f.changed) // every reader sees it, as frontier.Tracker's
		f.changed = make(chan struct{})
	}
	f.authors = authors
	f.mu.Unlock()
}

func (f *bfsFrontier) Authors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.authors)
}

// DiscoverySubjects: X accounts named by frontier authors' statements.
func (f *bfsFrontier) DiscoverySubjects() []string {
	authors := f.Authors()
	f.sink.mu.Lock()
	defer f.sink.mu.Unlock()
	var out []string
	for _, ev := range f.sink.byID {
		if i := ev.Tags.Find("i"); ev.Kind == 32009 && i != nil && strings.HasPrefix(i[1], "user:id:") && slices.Contains(authors, ev.PubKey) {
			out = append(out, i[1])
		}
	}
	return out
}

// ClaimCandidates: the frontier's authors, or with candidatesOnce those
// whose claims were not asked for yet (as the heap's).
func (f *bfsFrontier) ClaimCandidates() []string {
	authors := f.Authors()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.candidatesOnce {
		return authors
	}
	return slices.DeleteFunc(authors, func(a string) bool { return slices.Contains(f.claimsFetched, a) })
}

// HintedPubkeys: the hints (fourth element of an i tag) of frontier authors'
// statements.
func (f *bfsFrontier) HintedPubkeys() []string {
	f.hintsRead.Add(1)
	authors := f.Authors()
	f.sink.mu.Lock()
	defer f.sink.mu.Unlock()
	var out []string
	for _, ev := range f.sink.byID {
		if i := ev.Tags.Find("i"); ev.Kind == 32009 && len(i) > 3 && slices.Contains(authors, ev.PubKey) {
			out = append(out, i[3])
		}
	}
	return out
}

func (f *bfsFrontier) ClaimsFetched(pubkeys []string) {
	f.mu.Lock()
	f.claimsFetched = append(f.claimsFetched, pubkeys...)
	f.mu.Unlock()
}

func (f *bfsFrontier) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

func (f *bfsFrontier) Refresh(context.Context) error {
	f.recompute()
	return nil
}

// newSettings are the default settings with strategy.
func newSettings(strategy string) settings.Settings {
	s := settings.Defaults()
	s.Strategy = strategy
	return s
}

// changeSettings changes r's settings as the engine does: edit changes a
// copy, and r is handed the settings before and after.
func changeSettings(r *Runner, edit func(*settings.Settings)) {
	from := r.current()
	to := from
	edit(&to)
	r.ApplySettings(from, to)
}

func openStore(t testing.TB, relays ...string) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for _, r := range relays {
		if err := settings.Modify(st, settings.AddRelay(r)); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// person is a deterministic key pair.
type person struct{ sk, pk string }

func newPerson(name string) person {
	sum := sha256.Sum256([]byte(name))
	sk := hex.EncodeToString(sum[:])
	pk, _ := nostr.GetPublicKey(sk)
	return person{sk: sk, pk: pk}
}

func (p person) sign(kind int, at int64, tags nostr.Tags) *nostr.Event {
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Timestamp(at), Tags: tags}
	if err := ev.Sign(p.sk); err != nil {
		panic(err)
	}
	return ev
}

// trust makes a 32009 about a pubkey (d is a stand-in: this test does not validate).
func (p person) trust(subject person, v string, at int64, extra ...nostr.Tag) *nostr.Event {
	tags := nostr.Tags{{"d", "p:" + subject.pk}, {"p", subject.pk}, {"v", v}}
	return p.sign(32009, at, append(tags, extra...))
}
