package engine

import (
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/reposync"
	"dtp-personal/engine/validation"
)

// eventRules is the pipeline's checker, composed here and only here: the
// arrival rules every event meets, with the tag cap in force (a setting, as
// the server's), then the trust profile's rules for the trust kinds; every
// other kind is the repository profile's while it is on (decided once the
// signature is verified, Admit), and refused by the trust rules while it is
// off. Deletions (NIP-09, kind 5) are the repository profile's either way,
// since they may name trust events (reposync/deletion.go), and a trust event
// its author deleted is refused.
func (e *Engine) eventRules() eventChecker {
	return eventChecker{
		maxTagBytes: func() int { return e.serverLimits(e.Settings().Limits).MaxTagBytes },
		trust:       validation.Profile{Scope: e.settings.ScopeProfile},
		repos:       e.repos,
	}
}

type eventChecker struct {
	maxTagBytes func() int // read at each event: the user may change it
	trust       validation.Profile
	repos       *reposync.Syncer
}

func (c eventChecker) Check(ev *nostr.Event) (validation.Parsed, error) {
	if err := (validation.Arrival{MaxTagBytes: c.maxTagBytes()}).Check(ev); err != nil {
		return validation.Parsed{}, err
	}
	if ev.Kind == reposync.KindDeletion || !validation.IsTrustKind(ev.Kind) && c.repos.Enabled() {
		return validation.Parsed{}, nil
	}
	return c.trust.Check(ev)
}

// Admit is the repository profile's acceptance, for the kinds it decides;
// a trust event passes unless its author deleted it.
func (c eventChecker) Admit(ev *nostr.Event, source string) error {
	if validation.IsTrustKind(ev.Kind) {
		return c.repos.NotDeleted(ev)
	}
	return c.repos.Admit(ev, source)
}
