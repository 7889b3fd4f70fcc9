package ui

import (
	"errors"
	"net/url"
	"strings"

	"dtp-personal/engine/resolver"
)

// lookupExpected says what the look-up input takes, for the inline error.
const lookupExpected = "expected an npub1…, nostr:npub1…, a 64-hex pubkey or event id, user:id:N or an x.com/i/user/N link"

// errXHandle refuses a handle: the engine keeps X accounts by their id only
// (claims bind user:id:N to a pubkey), so a handle names nothing it holds.
var errXHandle = errors.New("X handles are not kept by the engine: paste the account as user:id:N or its x.com/i/user/N link")

// lookupSubject turns what a user pastes into the resolver's subject: a
// nostr: URI loses its scheme, an X profile link by id becomes user:id:N;
// the rest is checked by the resolver's own rules.
func lookupSubject(typed string) (string, error) {
	s := strings.TrimSpace(typed)
	if s == "" {
		return "", errors.New(lookupExpected)
	}
	s = strings.TrimPrefix(s, "nostr:")
	if id, ok, err := xProfileID(s); ok || err != nil {
		if err != nil {
			return "", err
		}
		s = "user:id:" + id
	}
	subject, err := resolver.CanonicalSubject(s)
	if err != nil {
		return "", errors.New(lookupExpected)
	}
	return subject, nil
}

// xProfileID reads an X profile link, with or without https://:
// x.com/i/user/N (or twitter.com) gives N; x.com/<handle> or @handle is
// refused with errXHandle; ok is false for anything else.
func xProfileID(s string) (id string, ok bool, err error) {
	if strings.HasPrefix(s, "@") {
		return "", false, errXHandle
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, perr := url.Parse(s)
	if perr != nil {
		return "", false, nil
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	if host != "x.com" && host != "twitter.com" {
		return "", false, nil
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) == 3 && parts[0] == "i" && parts[1] == "user" && parts[2] != "" {
		return parts[2], true, nil
	}
	return "", false, errXHandle
}
