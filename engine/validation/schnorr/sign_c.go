//go:build cgo && !purego

package schnorr

/*
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
*/
import "C"

import "unsafe"

// Sign is the BIP-340 signature of the 32-byte message hash msg by the
// secret key seckey, with no auxiliary randomness (so the same inputs give
// the same signature); ok is false for an invalid key. It is for fixtures
// and benchmarks (the product never signs but for NIP-42): about 4× faster
// than go-nostr's pure-Go signer, which made a million-event fixture take
// minutes.
func Sign(seckey *[32]byte, msg *[32]byte) (sig [64]byte, ok bool) {
	var keypair C.secp256k1_keypair
	if C.secp256k1_keypair_create(sharedContext, &keypair, (*C.uchar)(unsafe.Pointer(&seckey[0]))) != 1 {
		return sig, false
	}
	ok = C.secp256k1_schnorrsig_sign32(sharedContext, (*C.uchar)(unsafe.Pointer(&sig[0])),
		(*C.uchar)(unsafe.Pointer(&msg[0])), &keypair, nil) == 1
	return sig, ok
}
