package validation

import (
	"net/url"
	"strings"
)

// checkTypedSubject accepts the `i` subject forms the extension accepts and
// names the rule another breaks.
func checkTypedSubject(s string) error {
	switch {
	case strings.HasPrefix(s, "ext:twitter"), strings.HasPrefix(s, "ext:x.") ||
		strings.HasPrefix(s, "ext:x:") || strings.HasPrefix(s, "ext:x_"):
		return invalid("i subject uses a refused ext:twitter / ext:x form (use user:id:<digits>)")
	case strings.HasPrefix(s, "user:id:"), strings.HasPrefix(s, "post:id:"):
		if !isDigits(s[len("user:id:"):]) {
			return invalid("user:id / post:id value is not decimal digits")
		}
	case strings.HasPrefix(s, "hash:"):
		if !isLowerHex(s[len("hash:"):], 64) {
			return invalid("hash subject is not 64 lowercase hex characters")
		}
	case strings.HasPrefix(s, "web:"):
		if !isCanonicalWebURL(s[len("web:"):]) {
			return invalid("web subject is not a canonical http(s) URL (lowercase scheme and host, a path, no fragment, no default port)")
		}
	case strings.HasPrefix(s, "nostr:profile:"), strings.HasPrefix(s, "nostr:pubkey:"):
		if _, key, _ := strings.Cut(s[len("nostr:"):], ":"); !isLowerHex(key, 64) {
			return invalid("nostr:profile / nostr:pubkey value is not 64 lowercase hex characters")
		}
	case strings.HasPrefix(s, "nostr:addr:"):
		kind, rest, _ := strings.Cut(s[len("nostr:addr:"):], ":")
		key, _, hasD := strings.Cut(rest, ":")
		if _, ok := parseUnixSeconds(kind); !ok || (len(kind) > 1 && kind[0] == '0') || !isLowerHex(key, 64) || !hasD {
			return invalid("nostr:addr subject is not <kind>:<64 lowercase hex>:<identifier>")
		}
	default:
		return invalid("i subject is not user:id, post:id, hash, web, nostr:profile, nostr:pubkey or nostr:addr")
	}
	return nil
}

// isCanonicalWebURL reports an absolute http(s) URL as a WHATWG URL
// serialises it in the respects that matter for a slot: lower-case scheme
// and host, a path (at least "/"), no fragment, no default port.
func isCanonicalWebURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil {
		return false
	}
	if !strings.HasPrefix(raw, u.Scheme+"://") || u.Host == "" || u.Host != strings.ToLower(u.Host) {
		return false
	}
	port := u.Port()
	if port == "" && strings.HasSuffix(u.Host, ":") || u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
		return false
	}
	return strings.HasPrefix(u.EscapedPath(), "/") && !strings.Contains(raw, "#")
}
