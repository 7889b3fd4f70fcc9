package schnorr

import (
	"crypto/sha256"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// The plain build (cgo on, no tags) must get the C verifier; only -tags
// purego or CGO_ENABLED=0 may fall back to pure Go. The test binary's own
// build settings say which of these this run is.
func TestImplementationMatchesBuild(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build info")
	}
	cgo, purego := false, false
	for _, s := range info.Settings {
		switch s.Key {
		case "CGO_ENABLED":
			cgo = s.Value == "1"
		case "-tags":
			purego = slices.Contains(strings.Split(s.Value, ","), "purego")
		}
	}
	want := "libsecp256k1 (C)"
	if !cgo || purego {
		want = "pure Go (btcec)"
	}
	if Implementation != want {
		t.Fatalf("cgo=%v purego=%v: verifier %q, want %q", cgo, purego, Implementation, want)
	}
	t.Logf("verifier: %s", Implementation)
}

func TestVerify(t *testing.T) {
	key, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	msg := sha256.Sum256([]byte("hello"))
	s, err := schnorr.Sign(key, msg[:])
	if err != nil {
		t.Fatal(err)
	}
	var pubkey [32]byte
	var sig [64]byte
	copy(pubkey[:], schnorr.SerializePubKey(key.PubKey()))
	copy(sig[:], s.Serialize())
	if !Verify(&pubkey, &msg, &sig) {
		t.Fatal("valid signature rejected")
	}
	other := msg
	other[0] ^= 1
	if Verify(&pubkey, &other, &sig) {
		t.Fatal("signature accepted for another message")
	}
	bad := sig
	bad[63] ^= 1
	if Verify(&pubkey, &msg, &bad) {
		t.Fatal("altered signature accepted")
	}
	var offCurve [32]byte // x = 0 has no point on secp256k1
	if Verify(&offCurve, &msg, &sig) {
		t.Fatal("signature accepted for a pubkey off the curve")
	}
}

// Sign makes signatures Verify accepts, the same for the same inputs, and
// refuses a key that is not one.
func TestSign(t *testing.T) {
	seckey := sha256.Sum256([]byte("fixture key"))
	key, _ := btcec.PrivKeyFromBytes(seckey[:])
	var pubkey [32]byte
	copy(pubkey[:], schnorr.SerializePubKey(key.PubKey()))
	msg := sha256.Sum256([]byte("hello"))
	sig, ok := Sign(&seckey, &msg)
	if !ok || !Verify(&pubkey, &msg, &sig) {
		t.Fatalf("signature not accepted (ok %v)", ok)
	}
	if again, _ := Sign(&seckey, &msg); again != sig {
		t.Fatal("two signatures of the same message differ")
	}
	var zero [32]byte
	if _, ok := Sign(&zero, &msg); ok {
		t.Fatal("signed with the zero key")
	}
}
