// Package schnorr verifies BIP-340 Schnorr signatures, with the system's
// libsecp256k1 through cgo by default, or in pure Go under the build tag
// purego (or when cgo is off). It exists because go-nostr picks its C
// verifier only under a build tag of its own, which a plain `go build`
// of ours cannot set.
package schnorr
