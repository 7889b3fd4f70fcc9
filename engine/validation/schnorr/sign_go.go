//go:build !cgo || purego

package schnorr

import (
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// Sign is the BIP-340 signature of the 32-byte message hash msg by the
// secret key seckey; ok is false for an invalid key. It is for fixtures and
// benchmarks (the product never signs but for NIP-42).
func Sign(seckey *[32]byte, msg *[32]byte) (sig [64]byte, ok bool) {
	key, _ := btcec.PrivKeyFromBytes(seckey[:])
	if key.Key.IsZero() {
		return sig, false
	}
	s, err := schnorr.Sign(key, msg[:])
	if err != nil {
		return sig, false
	}
	copy(sig[:], s.Serialize())
	return sig, true
}
