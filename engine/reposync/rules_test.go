package reposync

import (
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// pipelineRules is the pipeline's checker as this profile's tests need it
// (the engine composes the real one, engine/checker.go, with the arrival
// rules before): the trust kinds by the trust rules, every other kind by
// the profile while it is on.
type pipelineRules struct{ sync *Syncer }

func (r pipelineRules) Check(ev *nostr.Event) (validation.Parsed, error) {
	if r.sync.Enabled() && !validation.IsTrustKind(ev.Kind) {
		return validation.Parsed{}, nil // Admit decides
	}
	return validation.DefaultProfile().Check(ev)
}

func (r pipelineRules) Admit(ev *nostr.Event, source string) error {
	if validation.IsTrustKind(ev.Kind) {
		return nil
	}
	return r.sync.Admit(ev, source)
}
