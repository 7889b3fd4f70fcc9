package validation

import (
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// ParseClaims validates a kind 10011 event's X (twitter) identity tags per
// the extension's NIP-39 profile: either no twitter tags at all (a valid
// event that claims nothing and so revokes earlier claims), or exactly one
// `twitter:<handle>` and one `twitter_id:<digits>` i tag. Other providers'
// i tags (github:, …) are ignored.
func ParseClaims(ev *nostr.Event) (*Claims, error) {
	if ev.Kind != KindClaims {
		return nil, invalid(fmt.Sprintf("kind %d is not 10011", ev.Kind))
	}
	var handleTags, idTags []nostr.Tag
	for _, tag := range ev.Tags {
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
	c := &Claims{ID: ev.ID, Author: ev.PubKey, CreatedAt: int64(ev.CreatedAt)}
	if len(handleTags) == 0 && len(idTags) == 0 {
		return c, nil
	}
	if len(handleTags) != 1 || len(idTags) != 1 {
		return nil, invalid("twitter claim needs exactly one twitter and one twitter_id i tag")
	}
	handle := strings.TrimPrefix(handleTags[0][1], "twitter:")
	if !isTwitterHandle(handle) {
		return nil, invalid("twitter handle is not 1-15 of [A-Za-z0-9_]")
	}
	id := strings.TrimPrefix(idTags[0][1], "twitter_id:")
	if !isDigits(id) {
		return nil, invalid("twitter_id is not decimal digits")
	}
	handleProof, err := proofPost(handleTags[0])
	if err != nil {
		return nil, err
	}
	idProof, err := proofPost(idTags[0])
	if err != nil {
		return nil, err
	}
	if handleProof != "" && idProof != "" && handleProof != idProof {
		return nil, invalid("twitter and twitter_id proof post ids differ")
	}
	c.Handles = []string{strings.ToLower(handle)}
	c.TwitterIDs = []string{id}
	return c, nil
}

// proofPost checks the optional legacy evidence: element 3 a decimal proof
// post id, element 4 (an extension addition) exactly `post:id:<same id>`.
func proofPost(tag nostr.Tag) (string, error) {
	if len(tag) < 3 || tag[2] == "" {
		if len(tag) > 3 {
			return "", invalid("twitter proof hint without a proof post id")
		}
		return "", nil
	}
	if !isDigits(tag[2]) {
		return "", invalid("twitter proof post id is not decimal digits")
	}
	if len(tag) > 3 && tag[3] != "post:id:"+tag[2] {
		return "", invalid("twitter proof hint is not post:id:<proof post id>")
	}
	return tag[2], nil
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
