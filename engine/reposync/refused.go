package reposync

import (
	"strings"
	"sync"

	"github.com/nbd-wtf/go-nostr"
)

// refusedIDs are the fetched events refused for what they are, never for
// what this server holds or when it was asked: a bad signature over the
// id's own content, an announcement without a d tag, a kind this server
// does not keep, an event its author deleted (the deletion stays). They are noted as the pipeline refuses them and written
// to the store (Store.NoteRefused) after each fetch, so a daily NIP-77
// catch-up does not download them again (ngit-grasp's lesson). Refusals
// that may turn (an event before what it refers to, a state event before
// its author becomes a maintainer, a date ahead of the clock, a forged id,
// which names someone else's event) are not remembered.
type refusedIDs struct {
	mu      sync.Mutex
	pending map[string]string // id → the refusal's words, not yet written
}

// maxPendingRefused bounds the ids noted between two writes.
const maxPendingRefused = 100_000

// lasting reports whether reason refuses the event for what it is.
func lasting(reason string) bool {
	switch reason {
	case "invalid: bad signature", "invalid: " + RuleAnnouncementNoD, "blocked: " + RuleDeletedByAuthor:
		return true
	}
	rule, ok := strings.CutPrefix(reason, "blocked: kind ")
	return ok && strings.HasSuffix(rule, " is not kept by this server")
}

// note keeps ev's id when reason is lasting.
func (r *refusedIDs) note(ev *nostr.Event, reason string) {
	if !lasting(reason) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = map[string]string{}
	}
	if len(r.pending) < maxPendingRefused {
		r.pending[ev.ID] = reason
	}
}

// take hands over the ids noted since the last take.
func (r *refusedIDs) take() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.pending
	r.pending = nil
	return out
}

// Rejected is the ingest pipeline's reject listener: a refused event this
// profile fetched is remembered when it is refused for what it is.
func (s *Syncer) Rejected(ev *nostr.Event, source, reason string) {
	if strings.HasPrefix(source, SourcePrefix) {
		s.refused.note(ev, reason)
	}
}

// saveRefused writes the ids noted since the last write.
func (s *Syncer) saveRefused() error {
	return s.cfg.Store.NoteRefused(s.refused.take(), s.cfg.Clock.Now().Unix())
}

// withoutRefused is need without the ids remembered as refused; skipped
// counts those left out.
func (s *Syncer) withoutRefused(need []string) (kept []string, skipped int, err error) {
	if err := s.saveRefused(); err != nil {
		return nil, 0, err
	}
	refused, err := s.cfg.Store.RefusedAmong(need)
	if err != nil || len(refused) == 0 {
		return need, 0, err
	}
	for _, id := range need {
		if _, ok := refused[id]; !ok {
			kept = append(kept, id)
		}
	}
	return kept, len(need) - len(kept), nil
}
