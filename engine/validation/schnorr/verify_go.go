//go:build !cgo || purego

package schnorr

import (
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// Implementation names the verifier compiled in: pure Go (btcec), about 4×
// slower than libsecp256k1; built with -tags purego or without cgo.
const Implementation = "pure Go (btcec)"

// Verify reports whether sig is a valid BIP-340 signature of the 32-byte
// message hash msg by the x-only public key pubkey.
func Verify(pubkey *[32]byte, msg *[32]byte, sig *[64]byte) bool {
	pk, err := schnorr.ParsePubKey(pubkey[:])
	if err != nil {
		return false
	}
	s, err := schnorr.ParseSignature(sig[:])
	if err != nil {
		return false
	}
	return s.Verify(msg[:], pk)
}
