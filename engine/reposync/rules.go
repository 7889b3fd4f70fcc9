package reposync

import (
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// TrustRules are the trust profile's checks (validation.Profile fits).
type TrustRules interface {
	Check(ev *nostr.Event) (parsed any, err error)
}

// Rules are the ingest pipeline's checker with this profile behind the trust
// rules: trust kinds keep their own rules; while the profile is on, every
// other kind is decided by it once its signature is verified (Admit); while
// it is off, the trust rules refuse them as before.
type Rules struct {
	Trust TrustRules
	Repos *Syncer
}

// Check runs the trust rules, or leaves the event to Admit.
func (r Rules) Check(ev *nostr.Event) (any, error) {
	if !validation.IsTrustKind(ev.Kind) && r.Repos.index().Enabled() {
		return nil, nil
	}
	return r.Trust.Check(ev)
}

// Admit is the profile's acceptance for events that are not trust kinds.
func (r Rules) Admit(ev *nostr.Event, source string) error {
	if validation.IsTrustKind(ev.Kind) {
		return nil
	}
	return r.Repos.Admit(ev, source)
}
