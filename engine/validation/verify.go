package validation

import (
	"crypto/sha256"

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
	var id, pubkey [32]byte
	var sig [64]byte
	switch {
	case !DecodeLowerHex(id[:], ev.ID):
		return invalid("event id is not 64 lowercase hex characters")
	case !DecodeLowerHex(pubkey[:], ev.PubKey):
		return invalid("pubkey is not 64 lowercase hex characters")
	case !DecodeLowerHex(sig[:], ev.Sig):
		return invalid("signature is not 128 lowercase hex characters")
	}
	// Hashing once here and verifying the signature over that hash binds it
	// to the id we store (what go-nostr's CheckID then CheckSignature do,
	// serializing the event twice).
	hash := sha256.Sum256(ev.Serialize())
	if hash != id {
		return invalid("event id does not match its content")
	}
	if !schnorr.Verify(&pubkey, &hash, &sig) {
		return invalid("bad signature")
	}
	return nil
}

// DecodeLowerHex decodes s into dst in one pass, reporting whether s is
// exactly 2*len(dst) lowercase hex characters.
func DecodeLowerHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := lowerHexValue(s[2*i])
		lo, ok2 := lowerHexValue(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}
