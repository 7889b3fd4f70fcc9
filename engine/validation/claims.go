package validation

import (
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// ParseClaims reads a kind 10011 event's X (twitter) identity per the
// extension's NIP-39 profile. Every signed 10011 with a sound created_at is
// its author's slot winner (NIP-39): one with no twitter tags, or with
// malformed ones, claims nothing and so revokes earlier claims; Malformed
// then names the broken rule. A claim is exactly one `twitter:<handle>` and
// one `twitter_id:<digits>` i tag, both bare (two elements) or both with the
// same proof post id (three elements, or four with `post:id:<that id>`).
// Other providers' i tags (github:, …) are ignored.
func ParseClaims(ev *nostr.Event) (*Claims, error) {
	if ev.Kind != KindClaims {
		return nil, invalid(fmt.Sprintf("kind %d is not 10011", ev.Kind))
	}
	if err := checkCreatedAt(ev); err != nil {
		return nil, err
	}
	c := &Claims{ID: ev.ID, Author: ev.PubKey, CreatedAt: int64(ev.CreatedAt)}
	handle, id, err := twitterClaim(ev.Tags)
	switch {
	case err != nil:
		c.Malformed = err.Error()
	case id != "":
		c.Handles, c.TwitterIDs = []string{strings.ToLower(handle)}, []string{id}
	}
	return c, nil
}

// twitterClaim finds the claimed handle and id ("" when there are no
// twitter tags), or the rule the twitter tags break.
func twitterClaim(tags nostr.Tags) (handle, id string, err error) {
	var handleTags, idTags []nostr.Tag
	for _, tag := range tags {
		if len(tag) < 2 || tag[0] != "i" {
			continue
		}
		switch {
		case strings.HasPrefix(tag[1], "twitter:"):
			handleTags = append(handleTags, tag)
		case strings.HasPrefix(tag[1], "twitter_id:"):
			idTags = append(idTags, tag)
		}
	}
	if len(handleTags) == 0 && len(idTags) == 0 {
		return "", "", nil
	}
	if len(handleTags) != 1 || len(idTags) != 1 {
		return "", "", invalid("twitter claim needs exactly one twitter and one twitter_id i tag")
	}
	handle = strings.TrimPrefix(handleTags[0][1], "twitter:")
	if !isTwitterHandle(handle) {
		return "", "", invalid("twitter handle is not 1-15 of [A-Za-z0-9_]")
	}
	id = strings.TrimPrefix(idTags[0][1], "twitter_id:")
	if !isDigits(id) {
		return "", "", invalid("twitter_id is not decimal digits")
	}
	if err := checkProofs(handleTags[0], idTags[0]); err != nil {
		return "", "", err
	}
	return handle, id, nil
}

// checkProofs: both tags bare, or both with the same decimal proof post id
// in the same form (three elements, or four ending in post:id:<proof id>).
func checkProofs(handleTag, idTag nostr.Tag) error {
	if len(handleTag) > 4 || len(idTag) > 4 {
		return invalid("twitter i tags have at most four elements")
	}
	proof := func(tag nostr.Tag) string {
		if len(tag) > 2 {
			return tag[2]
		}
		return ""
	}
	hp, ip := proof(handleTag), proof(idTag)
	switch {
	case hp == "" && ip == "":
		if len(handleTag) != 2 || len(idTag) != 2 {
			return invalid("twitter tags without a proof have exactly two elements")
		}
		return nil
	case !isDigits(hp) || !isDigits(ip):
		return invalid("twitter proof post id is not decimal digits on both tags")
	case hp != ip:
		return invalid("twitter and twitter_id proof post ids differ")
	case len(handleTag) != len(idTag):
		return invalid("twitter and twitter_id tags mix proof forms")
	case len(handleTag) == 4 && (handleTag[3] != "post:id:"+hp || idTag[3] != "post:id:"+hp):
		return invalid("twitter proof hint is not post:id:<proof post id>")
	}
	return nil
}

func isTwitterHandle(h string) bool {
	if len(h) == 0 || len(h) > 15 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}
