//go:build cgo && !purego

package schnorr

/*
#cgo pkg-config: libsecp256k1
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
*/
import "C"

import "unsafe"

// Implementation names the verifier compiled in: the system's libsecp256k1
// (Debian's libsecp256k1-dev to build, libsecp256k1-1 to run).
const Implementation = "libsecp256k1 (C)"

// sharedContext is read-only after creation, so concurrent verifies and signs share it
// (libsecp256k1 documents contexts as thread-safe for const calls).
var sharedContext = C.secp256k1_context_create(C.SECP256K1_CONTEXT_NONE)

// Verify reports whether sig is a valid BIP-340 signature of the 32-byte
// message hash msg by the x-only public key pubkey.
func Verify(pubkey *[32]byte, msg *[32]byte, sig *[64]byte) bool {
	var xonly C.secp256k1_xonly_pubkey
	if C.secp256k1_xonly_pubkey_parse(sharedContext, &xonly, (*C.uchar)(unsafe.Pointer(&pubkey[0]))) != 1 {
		return false
	}
	return C.secp256k1_schnorrsig_verify(sharedContext, (*C.uchar)(unsafe.Pointer(&sig[0])),
		(*C.uchar)(unsafe.Pointer(&msg[0])), 32, &xonly) == 1
}
