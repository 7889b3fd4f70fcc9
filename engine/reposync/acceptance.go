package reposync

import (
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// Rules of acceptance, each named in the refusal (`OK false` message).
const (
	RuleNotListed       = "announcement does not list this server"
	RuleNotMaintainer   = "state event not by a maintainer"
	RuleNotAboutRepo    = "not about a repository this server keeps"
	RuleAnnouncementNoD = "announcement has no d tag"
)

// refusal is an event this profile does not keep. Wants names what, once
// held, could change the answer (a repository reference, "d:<id>" for any
// announcement of that id, or a root event id): relays deliver out of
// order, so such an event is kept aside and checked again. Ends is set when
// the owner's newer announcement no longer lists this server: the held one
// must go.
type refusal struct {
	validation.Rejection
	Wants []string
	Ends  *announcement
}

// WaitsForOthers reports whether an OK message is the refusal of an event
// only because what it depends on is not held yet: the rules whose refusal
// names Wants (an issue before its repository's announcement, a comment
// before its issue, a maintainer's announcement or state before the owner's
// announcement). Holding other events may turn such an answer, so an import
// submits these events again once the rest of its file is committed.
func WaitsForOthers(message string) bool {
	rule, ok := strings.CutPrefix(message, "blocked: ")
	return ok && (rule == RuleNotAboutRepo || rule == RuleNotListed || rule == RuleNotMaintainer)
}

func refuse(rule string, wants ...string) *refusal {
	return &refusal{Rejection: validation.Rejection{Prefix: "blocked", Rule: rule}, Wants: wants}
}

// Admit decides whether a verified event is kept by the repository profile
// (SPEC §8, issue "Repository sync" §1). Trust kinds never reach it. It
// returns nil or a *refusal (or a *validation.Rejection for malformed events).
func (ix *index) Admit(ev *nostr.Event) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.services) == 0 {
		return &validation.Rejection{Prefix: "blocked", Rule: fmt.Sprintf("kind %d is not kept by this server", ev.Kind)}
	}
	switch ev.Kind {
	case KindAnnouncement:
		return ix.admitAnnouncement(ev)
	case KindState:
		return ix.admitState(ev)
	}
	return ix.admitTagged(ev)
}

// admitAnnouncement: listing us, or by a maintainer of a held repository of
// the same id (GRASP-01's maintainer exception). The owner's newer one
// without us ends the repository.
func (ix *index) admitAnnouncement(ev *nostr.Event) error {
	a := parseAnnouncement(ev, ix.normalize)
	if a.D == "" {
		return &validation.Rejection{Prefix: "invalid", Rule: RuleAnnouncementNoD}
	}
	if a.Lists(ix.services) {
		return nil
	}
	if maintains, _ := ix.maintainsHeld(a.Owner, a.D, a.Owner); maintains {
		return nil
	}
	r := refuse(RuleNotListed, dKey(a.D))
	if held := ix.held(a.Owner, a.D); held != nil && store.Beats(a.CreatedAt, a.ID, held.CreatedAt, held.ID) {
		ended := *held
		r.Ends, r.Wants = &ended, nil
	}
	return r
}

// admitState: a 30618 of a held repository's id by a member of that
// repository's recursive maintainer set.
func (ix *index) admitState(ev *nostr.Event) error {
	d := ev.Tags.GetD()
	maintains, heldAny := ix.maintainsHeld(ev.PubKey, d, "")
	switch {
	case maintains:
		return nil
	case heldAny:
		return refuse(RuleNotMaintainer, dKey(d))
	}
	return refuse(RuleNotAboutRepo, dKey(d))
}

// admitTagged: root events naming a held repository, and any event naming a
// held repository (layer 2) or a held root event (layer 3).
func (ix *index) admitTagged(ev *nostr.Event) error {
	var wants []string
	for _, v := range taggedRefs(ev) {
		if ix.heldRef(v) != nil {
			return nil
		}
		if _, _, ok := parseRef(v); ok {
			wants = append(wants, v)
		}
	}
	for _, v := range taggedIDs(ev) {
		k, ok := parseEventKey(v)
		switch {
		case !ok:
		case ix.rootHeld(k):
			return nil
		case len(ix.roots[k]) > 0:
			// a root of an ended repository: only its owner listing us again helps
			for _, r := range ix.roots[k] {
				wants = append(wants, string(r))
			}
		default:
			wants = append(wants, v)
		}
	}
	if len(wants) == 0 && !isRootKind(ev.Kind) {
		return &validation.Rejection{Prefix: "blocked", Rule: fmt.Sprintf("kind %d is not kept by this server", ev.Kind)}
	}
	return refuse(RuleNotAboutRepo, wants...)
}
