package settings

import (
	"errors"
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// ParsePubkey reads a public key a user typed, as an npub1… or 64 hex
// characters in either case, and returns it as lower-case hex. It is the one
// rulebook for typed keys: roots in the CLI and the UI, session roots.
func ParsePubkey(s string) (string, error) {
	typed := strings.TrimSpace(s)
	// bech32 allows an all upper-case npub; hex is case-insensitive
	lower := strings.ToLower(typed)
	switch {
	case lower == "":
		return "", errors.New("enter an npub or a 64-character hex public key")
	case strings.HasPrefix(lower, "nsec1"):
		// never echoed: an error message ends up in terminals, logs and screenshots
		return "", errors.New("that is a secret key (nsec1…), not a public key: never paste it anywhere, " +
			"anyone who has it can post as you; enter your npub (public key) instead")
	case strings.HasPrefix(lower, "npub1"):
		hex, err := validation.DecodeNpub(lower)
		if err != nil {
			return "", fmt.Errorf("%q is not a valid npub (check for a typo: the checksum does not match)", typed)
		}
		return hex, nil
	case nostr.IsValid32ByteHex(lower):
		return lower, nil
	}
	return "", fmt.Errorf("%q is neither an npub nor a 64-character hex public key", typed)
}
