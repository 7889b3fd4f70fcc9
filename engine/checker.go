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
// off.
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

func (c eventChecker) Check(ev *nostr.Event) (any, error) {
	if err := (validation.Arrival{MaxTagBytes: c.maxTagBytes()}).Check(ev); err != nil {
		return nil, err
	}
	if !validation.IsTrustKind(ev.Kind) && c.repos.Enabled() {
		return nil, nil
	}
	return c.trust.Check(ev)
}

// Admit is the repository profile's acceptance, for the kinds it decides.
func (c eventChecker) Admit(ev *nostr.Event, source string) error {
	if validation.IsTrustKind(ev.Kind) {
		return nil
	}
	return c.repos.Admit(ev, source)
}
