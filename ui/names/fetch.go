package names

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/validation"
)

// Profile is what the cache keeps of a kind-0 event: the name to show and
// the event's created_at (the newest profile wins).
type Profile struct {
	Name      string
	CreatedAt int64
}

// maxProfileBytes bounds one frame read from a relay: a kind 0 carries an
// about text and picture URLs, not more.
const maxProfileBytes = 256 << 10

// fetchProfiles asks one relay for the kind-0 events of pubkeys and returns
// the newest valid profile of each author that has one. It returns after
// EOSE, or with ctx's error when the relay does not finish in time.
func fetchProfiles(ctx context.Context, url string, pubkeys []string) (map[string]Profile, error) {
	conn, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxProfileBytes)
	req, err := json.Marshal([]any{"REQ", "names", nostr.Filter{Kinds: []int{0}, Authors: pubkeys}})
	if err != nil {
		return nil, err
	}
	if err := conn.Write(ctx, websocket.MessageText, req); err != nil {
		return nil, err
	}
	wanted := make(map[string]bool, len(pubkeys))
	for _, pk := range pubkeys {
		wanted[pk] = true
	}
	found := map[string]Profile{}
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		var frame []json.RawMessage
		if json.Unmarshal(data, &frame) != nil || len(frame) < 2 {
			continue
		}
		var label string
		_ = json.Unmarshal(frame[0], &label)
		switch label {
		case "EOSE":
			_ = conn.Close(websocket.StatusNormalClosure, "")
			return found, nil
		case "CLOSED":
			return nil, fmt.Errorf("%s closed the profile query: %s", url, frame[len(frame)-1])
		case "EVENT":
			var ev nostr.Event
			if len(frame) < 3 || json.Unmarshal(frame[2], &ev) != nil {
				continue
			}
			// only what was asked, signed by its author: a relay cannot name someone
			if ev.Kind != 0 || !wanted[ev.PubKey] || validation.VerifyEvent(&ev) != nil {
				continue
			}
			p := Profile{Name: displayName(ev.Content), CreatedAt: int64(ev.CreatedAt)}
			if p.CreatedAt > found[ev.PubKey].CreatedAt {
				found[ev.PubKey] = p
			}
		}
	}
}

// maxNameRunes bounds a shown name: a profile's name is the author's word,
// of any length.
const maxNameRunes = 48

// displayName is the name a kind-0 content gives (NIP-01, NIP-24):
// display_name, else name; cleaned of markup and control characters, cut
// to maxNameRunes. "" when it gives none.
func displayName(content string) string {
	var meta struct {
		DisplayName  string `json:"display_name"`
		DisplayName2 string `json:"displayName"` // older clients' spelling (NIP-24 deprecated)
		Name         string `json:"name"`
	}
	if json.Unmarshal([]byte(content), &meta) != nil {
		return ""
	}
	for _, n := range []string{meta.DisplayName, meta.DisplayName2, meta.Name} {
		n = strings.Join(strings.Fields(validation.Sanitize(n)), " ") // one line
		if r := []rune(n); len(r) > maxNameRunes {
			n = string(r[:maxNameRunes-1]) + "…"
		}
		if n != "" {
			return n
		}
	}
	return ""
}
