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
// it is off, the trust rules refuse them as before. Deletions (NIP-09, kind
// 5) are decided by the profile either way, since they may name trust
// events (deletion.go), and a trust event its author deleted is refused.
type Rules struct {
	Trust TrustRules
	Repos *Syncer
}

// Check runs the trust rules, or leaves the event to Admit.
func (r Rules) Check(ev *nostr.Event) (any, error) {
	if ev.Kind == KindDeletion || !validation.IsTrustKind(ev.Kind) && r.Repos.index().Enabled() {
		return nil, nil
	}
	return r.Trust.Check(ev)
}

// Admit is the profile's acceptance for events that are not trust kinds;
// a trust event passes unless its author deleted it.
func (r Rules) Admit(ev *nostr.Event, source string) error {
	if validation.IsTrustKind(ev.Kind) {
		return r.Repos.notDeleted(ev)
	}
	return r.Repos.Admit(ev, source)
}
