package validation

import (
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

func TestNpubRoundTrip(t *testing.T) {
	// NIP-19's published example pair.
	if got, err := DecodeNpub(npubA); err != nil || got != hexA {
		t.Fatalf("DecodeNpub(example) = %q, %v; want %s", got, err, hexA)
	}
	if got, err := EncodeNpub(hexA); err != nil || got != npubA {
		t.Fatalf("EncodeNpub(example) = %q, %v; want %s", got, err, npubA)
	}
	pk, _ := nostr.GetPublicKey(nostr.GeneratePrivateKey())
	npub, err := EncodeNpub(pk)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := DecodeNpub(npub); err != nil || back != pk {
		t.Fatalf("round trip of %s: %q, %v", pk, back, err)
	}
}

func TestNpubRejects(t *testing.T) {
	note, _ := nip19.EncodeNote(hexA)
	for _, bad := range []string{
		"", "npub1", strings.ToUpper(npubA), npubA[:62], npubA + "q", note,
		npubA[:10] + "b" + npubA[11:], // 'b' is outside the bech32 alphabet
		npubA[:20] + "q" + npubA[21:], // checksum broken
	} {
		if _, err := DecodeNpub(bad); err == nil {
			t.Errorf("DecodeNpub(%q) accepted", bad)
		}
	}
	if _, err := EncodeNpub(strings.ToUpper(hexA)); err == nil {
		t.Error("EncodeNpub accepted uppercase hex")
	}
}
