//go:build !libsecp256k1

package validation

// VerifierName names the Schnorr implementation this binary was built with:
// without go-nostr's libsecp256k1 tag it verifies in pure Go (btcec), about
// 3× slower. The packaging scripts set the tag (README, "Building").
const VerifierName = "pure Go (btcec)"
