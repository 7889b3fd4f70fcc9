package validation

import (
	"crypto/sha256"
	"encoding/hex"

	"dtp-personal/engine/validation/schnorr"

	"github.com/nbd-wtf/go-nostr"
)

// VerifierName names the Schnorr implementation this binary was built with.
const VerifierName = schnorr.Implementation

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
	}
	// The hex was checked above, so these decodes cannot fail. Hashing once
	// here and signing over that hash binds the signature to the id we store
	// (what go-nostr's CheckID then CheckSignature do, serializing twice).
	var id, pubkey [32]byte
	var sig [64]byte
	hex.Decode(id[:], []byte(ev.ID))
	hex.Decode(pubkey[:], []byte(ev.PubKey))
	hex.Decode(sig[:], []byte(ev.Sig))
	hash := sha256.Sum256(ev.Serialize())
	if hash != id {
		return invalid("event id does not match its content")
	}
	if !schnorr.Verify(&pubkey, &hash, &sig) {
		return invalid("bad signature")
	}
	return nil
}
