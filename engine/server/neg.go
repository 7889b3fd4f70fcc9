package server

import (
	"encoding/json"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"dtp-personal/engine/relay"
)

// NIP-77 (negentropy set reconciliation) over any NIP-01 filter, using
// go-nostr's implementation. A session holds the stamps of its filter's
// events, taken once at NEG-OPEN; each message costs work bounded by the
// session's size and the frame limit, and sessions per connection and stamps
// per session are limited (Limits.MaxNegSessions, MaxNegItems).

func (c *conn) handleNeg(label string, frame []json.RawMessage) {
	var subID, msg string
	if len(frame) < 2 || json.Unmarshal(frame[1], &subID) != nil || subID == "" || len(subID) > 64 {
		c.notice("invalid: " + label + " needs a subscription id of 1 to 64 characters")
		return
	}
	switch label {
	case "NEG-CLOSE":
		delete(c.negs, subID)
		return
	case "NEG-OPEN":
		// NIP-77: opening an id in use first closes the old session
		delete(c.negs, subID)
		var f nostr.Filter
		if len(frame) != 4 || json.Unmarshal(frame[2], &f) != nil || json.Unmarshal(frame[3], &msg) != nil {
			c.negErr(frame, "invalid: NEG-OPEN needs a subscription id, a filter and a message")
			return
		}
		neg, reason := c.openNeg(f)
		if neg == nil {
			c.negErr(frame, reason)
			return
		}
		c.negs[subID] = neg
	case "NEG-MSG":
		if len(frame) != 3 || json.Unmarshal(frame[2], &msg) != nil {
			c.negErr(frame, "invalid: NEG-MSG needs a subscription id and a message")
			return
		}
		if c.negs[subID] == nil {
			c.negErr(frame, "closed: no reconciliation is open under this id")
			return
		}
	}
	out, err := c.negs[subID].Reconcile(msg)
	if err != nil {
		delete(c.negs, subID)
		c.negErr(frame, "invalid: "+err.Error())
		return
	}
	c.send("NEG-MSG", subID, out)
}

// openNeg loads f's stamps into a new session, or says why not.
func (c *conn) openNeg(f nostr.Filter) (*negentropy.Negentropy, string) {
	l := c.s.Limits()
	if len(c.negs) >= l.MaxNegSessions {
		c.s.refused.Inc("too-many-reconciliations")
		if l.MaxNegSessions == 0 {
			return nil, "blocked: NIP-77 is turned off on this server"
		}
		return nil, fmt.Sprintf("blocked: %d open reconciliations is the limit per connection", l.MaxNegSessions)
	}
	stamps, err := c.s.cfg.Events.Stamps(c.ctx, f, l.MaxNegItems+1)
	if err != nil {
		return nil, "error: could not read the stored events"
	}
	if len(stamps) > l.MaxNegItems {
		c.s.refused.Inc("reconciliation-too-big")
		return nil, fmt.Sprintf("blocked: this query is too big (more than %d events); narrow the filter", l.MaxNegItems)
	}
	vec := vector.New()
	for _, st := range stamps {
		vec.Insert(st.CreatedAt, st.ID)
	}
	vec.Seal()
	// replies stay within the max_message_length we advertise, and within
	// what most relays' clients read (a peer's sync may take no more)
	return negentropy.New(vec, relay.NegFrameLimit(min(l.MaxMessageBytes, relay.DefaultMaxMessage), 0)), ""
}

// negErr answers a NIP-77 message with NEG-ERR, the name NIP-77 gives it
// (go-nostr's ErrorEnvelope writes NEG-ERROR, so it is not used here).
func (c *conn) negErr(frame []json.RawMessage, reason string) {
	var subID string
	if len(frame) > 1 {
		_ = json.Unmarshal(frame[1], &subID)
	}
	c.send("NEG-ERR", subID, reason)
}
