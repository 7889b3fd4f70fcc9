package npub

import (
	"strings"
	"testing"
)

// The NIP-19 document's example key.
const (
	exampleHex  = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"
	exampleNpub = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg"
)

func TestEncodeMatchesNIP19Example(t *testing.T) {
	got, err := Encode(exampleHex)
	if err != nil || got != exampleNpub {
		t.Fatalf("Encode = %q, %v; want %q", got, err, exampleNpub)
	}
}

func TestDecodeMatchesNIP19Example(t *testing.T) {
	for _, in := range []string{exampleNpub, strings.ToUpper(exampleNpub)} {
		got, err := Decode(in)
		if err != nil || got != exampleHex {
			t.Fatalf("Decode(%s) = %q, %v; want %q", in, got, err, exampleHex)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, key := range []string{
		strings.Repeat("00", 32), strings.Repeat("ff", 32),
		"3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d",
	} {
		n, err := Encode(key)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(n)
		if err != nil || back != key {
			t.Fatalf("round trip of %s via %s = %q, %v", key, n, back, err)
		}
	}
}

func TestRejectsBadInput(t *testing.T) {
	flipped := exampleNpub[:20] + "q" + exampleNpub[21:] // one character changed
	for _, in := range []string{
		flipped,
		"nsec10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg",
		"npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptG",
		"npub1bio", "npub1", exampleHex,
	} {
		if got, err := Decode(in); err == nil {
			t.Errorf("Decode(%q) = %q; want an error", in, got)
		}
	}
	for _, in := range []string{"", "abc", exampleHex[:62], "zz" + exampleHex[2:]} {
		if got, err := Encode(in); err == nil {
			t.Errorf("Encode(%q) = %q; want an error", in, got)
		}
	}
}
