//go:build libsecp256k1

package validation

// VerifierName names the Schnorr implementation this binary was built with:
// go-nostr's build tag libsecp256k1 compiles the C library it ships (cgo).
const VerifierName = "libsecp256k1 (C)"
