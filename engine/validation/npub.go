package validation

import (
	"encoding/hex"
	"errors"
	"strings"
)

// The pinned go-nostr's nip19 package pulls in a module that is not in
// go.sum, so the small part of BIP-173 bech32 that npub needs lives here.

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

var bech32Values = func() (table [128]int8) {
	for i := range table {
		table[i] = -1
	}
	for i, c := range bech32Charset {
		table[c] = int8(i)
	}
	return table
}()

func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := 0; i < 5; i++ {
			if (top>>uint(i))&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func bech32HRPExpand(hrp string) []byte {
	out := make([]byte, 0, len(hrp)*2+1)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]&31)
	}
	return out
}

// convertBits regroups a bit stream; pad=false rejects leftover non-zero bits.
func convertBits(data []byte, from, to uint, pad bool) ([]byte, error) {
	var acc, bits uint
	maxv := uint(1)<<to - 1
	out := make([]byte, 0, len(data)*int(from)/int(to)+1)
	for _, v := range data {
		acc = acc<<from | uint(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad {
		if bits > 0 {
			out = append(out, byte(acc<<(to-bits)&maxv))
		}
	} else if bits >= from || acc<<(to-bits)&maxv != 0 {
		return nil, errors.New("non-zero padding")
	}
	return out, nil
}

var errNotNpub = errors.New("not a canonical npub")

// DecodeNpub returns the hex pubkey of a canonical (lowercase, valid
// checksum, 32-byte) NIP-19 npub.
func DecodeNpub(npub string) (string, error) {
	const hrp = "npub"
	// 4 hrp + '1' + 52 data + 6 checksum characters for 32 bytes.
	if len(npub) != 63 || !strings.HasPrefix(npub, hrp+"1") {
		return "", errNotNpub
	}
	data := make([]byte, 0, 58)
	for i := len(hrp) + 1; i < len(npub); i++ {
		c := npub[i]
		if c >= 128 || bech32Values[c] < 0 {
			return "", errNotNpub
		}
		data = append(data, byte(bech32Values[c]))
	}
	if bech32Polymod(append(bech32HRPExpand(hrp), data...)) != 1 {
		return "", errNotNpub
	}
	key, err := convertBits(data[:len(data)-6], 5, 8, false)
	if err != nil || len(key) != 32 {
		return "", errNotNpub
	}
	return hex.EncodeToString(key), nil
}

// EncodeNpub returns the NIP-19 npub of a 64-character hex pubkey.
func EncodeNpub(pubkey string) (string, error) {
	if !isLowerHex(pubkey, 64) {
		return "", errors.New("pubkey is not 64 lowercase hex characters")
	}
	key, _ := hex.DecodeString(pubkey)
	data, _ := convertBits(key, 8, 5, true)
	values := append(bech32HRPExpand("npub"), data...)
	values = append(values, 0, 0, 0, 0, 0, 0)
	mod := bech32Polymod(values) ^ 1
	var b strings.Builder
	b.Grow(63)
	b.WriteString("npub1")
	for _, v := range data {
		b.WriteByte(bech32Charset[v])
	}
	for i := 0; i < 6; i++ {
		b.WriteByte(bech32Charset[mod>>uint(5*(5-i))&31])
	}
	return b.String(), nil
}

// isLowerHex reports whether s is exactly n lowercase hex characters.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
