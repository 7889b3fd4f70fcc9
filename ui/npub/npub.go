// Package npub converts public keys between hex and the NIP-19 "npub" form
// (bech32, BIP-173) for display and input in the desktop app.
//
// It exists because go-nostr's nip19 package needs a module that is not in
// this project's go.sum; it implements only the npub case.
package npub

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

const (
	prefix   = "npub"
	charset  = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
	keyBytes = 32
)

// Encode turns a 64-character hex public key into its npub form.
func Encode(hexKey string) (string, error) {
	key, err := hex.DecodeString(hexKey)
	if err != nil || len(key) != keyBytes {
		return "", fmt.Errorf("npub: %q is not a 64-character hex public key", hexKey)
	}
	data := regroup(key, 8, 5)
	data = append(data, checksum(data)...)
	var b strings.Builder
	b.WriteString(prefix + "1")
	for _, v := range data {
		b.WriteByte(charset[v])
	}
	return b.String(), nil
}

// Decode turns an npub into the lower-case hex public key, checking the
// checksum and length.
func Decode(s string) (string, error) {
	if strings.ToLower(s) != s && strings.ToUpper(s) != s {
		return "", errors.New("npub: mixed case")
	}
	s = strings.ToLower(s)
	if !strings.HasPrefix(s, prefix+"1") {
		return "", errors.New("npub: does not start with npub1")
	}
	body := s[len(prefix)+1:]
	if len(body) < 6 {
		return "", errors.New("npub: too short")
	}
	data := make([]byte, len(body))
	for i := range body {
		v := strings.IndexByte(charset, body[i])
		if v < 0 {
			return "", fmt.Errorf("npub: invalid character %q", body[i])
		}
		data[i] = byte(v)
	}
	if polymod(append(expandPrefix(), data...)) != 1 {
		return "", errors.New("npub: bad checksum")
	}
	payload := data[:len(data)-6]
	// 32 bytes are 256 bits: 52 groups of 5 bits, the last padded with 4 zero bits.
	if len(payload) != (keyBytes*8+4)/5 || payload[len(payload)-1]&0x0f != 0 {
		return "", errors.New("npub: not a 32-byte key")
	}
	return hex.EncodeToString(regroup(payload, 5, 8)[:keyBytes]), nil
}

// regroup repacks a bit string from groups of `from` bits into groups of `to`
// bits, zero-padding the last group.
func regroup(in []byte, from, to uint) []byte {
	var acc, bits uint
	out := make([]byte, 0, (uint(len(in))*from+to-1)/to)
	for _, v := range in {
		acc = acc<<from | uint(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits)&(1<<to-1))
		}
	}
	if bits > 0 {
		out = append(out, byte(acc<<(to-bits))&(1<<to-1))
	}
	return out
}

func expandPrefix() []byte {
	out := make([]byte, 0, 2*len(prefix)+1)
	for i := range len(prefix) {
		out = append(out, prefix[i]>>5)
	}
	out = append(out, 0)
	for i := range len(prefix) {
		out = append(out, prefix[i]&31)
	}
	return out
}

func checksum(data []byte) []byte {
	values := append(append(expandPrefix(), data...), 0, 0, 0, 0, 0, 0)
	mod := polymod(values) ^ 1
	out := make([]byte, 6)
	for i := range out {
		out[i] = byte(mod>>(5*(5-i))) & 31
	}
	return out
}

func polymod(values []byte) uint32 {
	generator := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i, g := range generator {
			if (top>>i)&1 == 1 {
				chk ^= g
			}
		}
	}
	return chk
}
