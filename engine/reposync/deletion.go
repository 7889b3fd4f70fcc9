package reposync

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// KindDeletion is NIP-09's deletion request.
const KindDeletion = 5

// deleters are the authors of held deletions, so that an arriving event
// costs a query for a deletion naming it only when its author ever deleted
// something.
type deleters struct {
	mu      sync.RWMutex
	authors map[string]bool
}

// load reads the authors of the held deletions.
func (d *deleters) load(ctx context.Context, st Store) error {
	return st.Scan(ctx, []int{KindDeletion}, func(ev *nostr.Event) error {
		d.add(ev.PubKey)
		return nil
	})
}

func (d *deleters) add(pubkey string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.authors == nil {
		d.authors = map[string]bool{}
	}
	d.authors[pubkey] = true
}

func (d *deleters) has(pubkey string) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.authors[pubkey]
}

// Rules of deletion (NIP-09), each named in the refusal.
const (
	RuleDeletionNotAuthor   = "deletion not by the author of what it names"
	RuleDeletedByAuthor     = "deleted by its author"
	RuleDeletionNothingHeld = "deletion names nothing this server holds"
)

// deletionTargets are what a kind 5 names: event ids (e tags) and
// addressable coordinates (a tags, "kind:pubkey:d").
func deletionTargets(ev *nostr.Event) (ids []string, coords []coordinate) {
	for _, t := range ev.Tags {
		if len(t) < 2 {
			continue
		}
		switch t[0] {
		case "e":
			if _, ok := parseEventKey(t[1]); ok {
				ids = append(ids, t[1])
			}
		case "a":
			if c, ok := parseCoordinate(t[1]); ok {
				coords = append(coords, c)
			}
		}
	}
	return ids, coords
}

// coordinate is an addressable event's address.
type coordinate struct {
	Kind   int
	Pubkey string
	D      string
}

func (c coordinate) String() string { return strconv.Itoa(c.Kind) + ":" + c.Pubkey + ":" + c.D }

func parseCoordinate(s string) (coordinate, bool) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || !validation.DecodeLowerHex(make([]byte, 32), parts[1]) {
		return coordinate{}, false
	}
	k, err := strconv.Atoi(parts[0])
	if err != nil {
		return coordinate{}, false
	}
	return coordinate{Kind: k, Pubkey: parts[1], D: parts[2]}, true
}

// admitDeletion keeps a kind 5 whose author wrote something it names that
// this server keeps: a held trust event (32009, 32014, 10011) or repository
// event by id, a trust statement or rating held at the coordinate (up to
// the deletion's created_at), or the announcement or state of a held
// repository by coordinate. One naming held events of others only is
// refused by name; one naming ids or coordinates of its author not held yet
// waits for them (Admit: kept when pushed, aside when fetched), so a
// deletion that arrives first still wins.
func (s *Syncer) admitDeletion(ev *nostr.Event) error {
	ids, coords := deletionTargets(ev)
	othersCoord := false
	var wants []string
	for _, c := range coords {
		switch {
		case c.Pubkey != ev.PubKey:
			othersCoord = true
		case !nostr.IsAddressableKind(c.Kind):
		case (c.Kind == KindAnnouncement || c.Kind == KindState) && s.index().concerns(c.Pubkey, c.D):
			return nil
		case validation.IsTrustKind(c.Kind):
			held, err := s.heldAt(c, ev.CreatedAt)
			if err != nil || held {
				return err
			}
			wants = append(wants, c.String())
		default:
			wants = append(wants, c.String())
		}
	}
	held := map[string]bool{}
	othersID := false
	if len(ids) > 0 {
		evs, err := s.cfg.Store.Query(context.Background(), nostr.Filter{IDs: ids}, len(ids))
		if err != nil {
			return err
		}
		for _, named := range evs {
			held[named.ID] = true
			switch {
			case named.PubKey != ev.PubKey:
				othersID = true
			case named.Kind != KindDeletion && (validation.IsTrustKind(named.Kind) || s.Keeps(named)):
				return nil
			}
		}
	}
	for _, id := range ids {
		if !held[id] {
			wants = append(wants, id)
		}
	}
	if othersID || othersCoord && len(wants) == 0 {
		return &validation.Rejection{Prefix: "blocked", Rule: RuleDeletionNotAuthor}
	}
	return refuse(RuleDeletionNothingHeld, wants...)
}

// heldAt reports whether an event at coordinate c, created at or before t,
// is held.
func (s *Syncer) heldAt(c coordinate, t nostr.Timestamp) (bool, error) {
	evs, err := s.cfg.Store.Query(context.Background(), c.upTo(t), 1)
	return len(evs) > 0, err
}

// upTo is the filter of the events at c created at or before t.
func (c coordinate) upTo(t nostr.Timestamp) nostr.Filter {
	return nostr.Filter{Kinds: []int{c.Kind}, Authors: []string{c.Pubkey}, Tags: nostr.TagMap{"d": {c.D}}, Until: &t}
}

// NotDeleted refuses an event a stored deletion of its author names.
func (s *Syncer) NotDeleted(ev *nostr.Event) error {
	switch deleted, err := s.deletedByAuthor(ev); {
	case err != nil:
		return err
	case deleted:
		return &validation.Rejection{Prefix: "blocked", Rule: RuleDeletedByAuthor}
	}
	return nil
}

// deletedByAuthor reports whether a stored kind 5 by ev's author names it:
// by id, or, for an addressable event, by coordinate at or after its
// created_at. Such an event is refused, however often it is fetched again.
func (s *Syncer) deletedByAuthor(ev *nostr.Event) (bool, error) {
	if !s.deleters.has(ev.PubKey) {
		return false, nil // most authors never deleted anything: no query
	}
	f := nostr.Filter{Kinds: []int{KindDeletion}, Authors: []string{ev.PubKey}, Tags: nostr.TagMap{"e": {ev.ID}}}
	if found, err := s.cfg.Store.Query(context.Background(), f, 1); err != nil || len(found) > 0 {
		return len(found) > 0, err
	}
	if !nostr.IsAddressableKind(ev.Kind) {
		return false, nil
	}
	c := coordinate{Kind: ev.Kind, Pubkey: ev.PubKey, D: ev.Tags.GetD()}
	since := ev.CreatedAt
	f = nostr.Filter{Kinds: []int{KindDeletion}, Authors: []string{ev.PubKey}, Tags: nostr.TagMap{"a": {c.String()}}, Since: &since}
	found, err := s.cfg.Store.Query(context.Background(), f, 1)
	return len(found) > 0, err
}

// applyDeletions carries out committed kind 5s: the events they name by
// their author leave the store (so they are served no more, REQ, COUNT
// and NIP-77 alike; a slot keeps the deleted winner's time, so an older
// event never takes its place), the index and Config.Removed (the trust
// graph) forget them, and a deleted announcement of a followed repository
// ends it, as a newer one without our service does.
// It runs on the pipeline's writer, after the batch's commit.
func (s *Syncer) applyDeletions(dels []*nostr.Event) {
	for _, del := range dels {
		if err := s.applyDeletion(del); err != nil {
			s.cfg.Log.Warn("apply a deletion", "id", del.ID, "err", err)
		}
	}
}

func (s *Syncer) applyDeletion(del *nostr.Event) error {
	ctx := context.Background()
	ids, coords := deletionTargets(del)
	var doomed []string
	if len(ids) > 0 {
		evs, err := s.cfg.Store.Query(ctx, nostr.Filter{IDs: ids}, len(ids))
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if ev.PubKey == del.PubKey && ev.Kind != KindDeletion {
				doomed = append(doomed, ev.ID)
			}
		}
	}
	for _, c := range coords {
		if c.Pubkey != del.PubKey || !nostr.IsAddressableKind(c.Kind) {
			continue
		}
		evs, err := s.cfg.Store.Query(ctx, c.upTo(del.CreatedAt), 1000)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			doomed = append(doomed, ev.ID)
		}
	}
	if len(doomed) == 0 {
		return nil
	}
	removed, err := s.cfg.Store.DeleteRequested(doomed)
	if err != nil {
		return err
	}
	ix := s.index()
	var ended []change
	for _, ev := range removed {
		if ev.Kind != KindAnnouncement {
			continue
		}
		ref := makeRef(ev.PubKey, ev.Tags.GetD())
		if a, held := ix.Announcement(ref); held && a.ID == ev.ID {
			ended = append(ended, *ix.End(ref))
			s.cfg.Log.Info("repository announcement deleted by its owner; stopped keeping it", "repo", ref)
		}
	}
	s.Removed(removed)
	if s.cfg.Removed != nil {
		s.cfg.Removed(removed)
	}
	s.learn(ended...)
	return nil
}

// concerns reports whether pubkey's repository d is held, or pubkey
// maintains a held repository of id d.
func (ix *index) concerns(pubkey, d string) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	maintains, _ := ix.maintainsHeld(pubkey, d, "")
	return ix.held(pubkey, d) != nil || maintains
}
