package validation

import "github.com/nbd-wtf/go-nostr"

func invalid(rule string) *Rejection { return &Rejection{Prefix: "invalid", Rule: rule} }

// VerifyEvent checks the event's envelope: well-formed hex fields, the id
// recomputed from the NIP-01 serialization, and the Schnorr signature.
// It is the expensive step; callers run it off the socket read loop.
func VerifyEvent(ev *nostr.Event) error {
	switch {
	case !isLowerHex(ev.ID, 64):
		return invalid("event id is not 64 lowercase hex characters")
	case !isLowerHex(ev.PubKey, 64):
		return invalid("pubkey is not 64 lowercase hex characters")
	case !isLowerHex(ev.Sig, 128):
		return invalid("signature is not 128 lowercase hex characters")
	case !ev.CheckID():
		return invalid("event id does not match its content")
	}
	// CheckSignature does not look at ID; together with CheckID above the
	// signature is bound to the id we store.
	if ok, err := ev.CheckSignature(); err != nil || !ok {
		return invalid("bad signature")
	}
	return nil
}
