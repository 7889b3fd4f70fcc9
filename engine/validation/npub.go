package validation

import (
	"errors"
	"strings"

	"github.com/nbd-wtf/go-nostr/nip19"
)

var errNotNpub = errors.New("not a canonical npub")

// DecodeNpub returns the hex pubkey of a canonical npub: lowercase bech32
// with a valid checksum and a 32-byte key (the form a subject hint must use).
func DecodeNpub(npub string) (string, error) {
	if !strings.HasPrefix(npub, "npub1") || strings.ToLower(npub) != npub {
		return "", errNotNpub
	}
	prefix, value, err := nip19.Decode(npub)
	pubkey, ok := value.(string)
	if err != nil || prefix != "npub" || !ok {
		return "", errNotNpub
	}
	return pubkey, nil
}

// EncodeNpub returns the npub of a 64-character lowercase hex pubkey.
func EncodeNpub(pubkey string) (string, error) {
	if !isLowerHex(pubkey, 64) {
		return "", errors.New("pubkey is not 64 lowercase hex characters")
	}
	return nip19.EncodePublicKey(pubkey)
}

// isLowerHex reports whether s is exactly n lowercase hex characters.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if _, ok := lowerHexValue(s[i]); !ok {
			return false
		}
	}
	return true
}

// lowerHexValue is the value of c as a lowercase hex digit.
func lowerHexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}
