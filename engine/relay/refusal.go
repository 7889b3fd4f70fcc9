package relay

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// refusalCooldown is how long a relay that refused subscriptions is left
// alone before it is asked again.
const refusalCooldown = time.Minute

// refusalWords mark a relay refusing work for load rather than content:
// strfry's "too many concurrent REQs", rate limits, throttling.
var refusalWords = []string{"too many", "rate limit", "rate-limit", "slow down", "throttl", "maximum concurrent"}

// isRefusal reports whether a NOTICE or CLOSED reason says the relay refuses
// subscriptions for load (ask again later with fewer REQs): NIP-01's
// rate-limited prefix, or words relays use without it.
func isRefusal(reason string) bool {
	if reasonPrefix(reason) == prefixRateLimited {
		return true
	}
	reason = strings.ToLower(reason)
	for _, w := range refusalWords {
		if strings.Contains(reason, w) {
			return true
		}
	}
	return false
}

// isRateLimited reports whether a reason says the relay is rate-limiting
// (NIP-01's "rate-limited:" prefix), in a CLOSED, an OK, a NOTICE, or a
// CLOSED made of a NOTICE ("notice: …").
func isRateLimited(reason string) bool {
	return reasonPrefix(strings.TrimPrefix(reason, "notice: ")) == prefixRateLimited
}

// coolDown leaves the connection alone for refusalCooldown from now: a
// relay that says it is rate-limiting is not asked for pages meanwhile,
// on this connection, rather than asked again at once or dropped and
// dialled again (which would count against its limit too).
func (c *Conn) coolDown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.coolUntil = time.Now().Add(refusalCooldown)
}

// coolingUntil is when the connection's cool-down after a rate limit ends,
// zero when none runs.
func (c *Conn) coolingUntil() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Now().After(c.coolUntil) {
		return time.Time{}
	}
	return c.coolUntil
}

// waitCooled waits for the connection's cool-down, if one runs.
func (c *Conn) waitCooled(ctx context.Context) error {
	until := c.coolingUntil()
	if until.IsZero() {
		return nil
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.ctx.Done():
		return c.err()
	}
}

// notice hands a NOTICE to the user. A refusing NOTICE names no
// subscription (strfry answers an excess REQ with only a NOTICE). A relay
// answers REQs in the order they were sent, so it is for the oldest REQ
// not yet answered: when that is one we stopped waiting for
// (Conn.unanswered: closed by a repack, or ended by an earlier NOTICE), the
// NOTICE is its answer and the REQs waiting now get theirs later. Else every
// REQ sent and still waiting for its EOSE ends as closed with the notice as
// reason, in case the relay does not keep that order: none is left waiting
// for an answer that will not come. A CLOSE goes out for each, after its
// REQ, in case the relay did accept it.
func (c *Conn) notice(msg string) {
	if c.opts.onNotice != nil {
		c.opts.onNotice(msg)
	}
	c.noticeToNeg(msg)
	if reasonPrefix(msg) == prefixAuthRequired {
		c.authenticate() // a relay asking for AUTH by NOTICE: answer its challenge
	}
	if !isRefusal(msg) {
		return
	}
	c.counts.refusals.Add(1)
	c.mu.Lock()
	var pending []*Sub
	var written []chan struct{} // pending's REQ writes
	most := 0                   // the most REQs open when one of them was sent
	for _, s := range c.subs {
		if s.writing != nil && !s.eosed && !s.awaitingAuth {
			pending = append(pending, s)
			written = append(written, s.writing)
			most = max(most, s.openAtSend)
		}
	}
	if len(c.unanswered) > 0 {
		owed := slices.MinFunc(c.unanswered, func(a, b owedReq) int { return cmp.Compare(a.seq, b.seq) })
		if !slices.ContainsFunc(pending, func(s *Sub) bool { return s.seq < owed.seq }) {
			c.answeredLocked(owed.seq)
			c.mu.Unlock()
			return
		}
	}
	lowered := false
	for _, s := range pending {
		lowered = c.refusedLocked(most, s) || lowered
	}
	// the NOTICE answers the oldest of pending; the others it ends may
	// still get theirs
	if len(pending) > 0 {
		answered := slices.MinFunc(pending, func(a, b *Sub) int { return cmp.Compare(a.seq, b.seq) })
		for _, s := range pending {
			if s != answered {
				c.oweLocked(s)
			}
		}
	}
	c.mu.Unlock()
	if lowered {
		defer c.allowanceLowered() // once the handlers below have run
	}
	// each ends once its CLOSE is out, as Sub.close does, so that a REQ sent
	// in the room it leaves reaches the relay after the CLOSE
	for i, s := range pending {
		<-written[i] // a REQ being written as the NOTICE came: its CLOSE follows it
		closeMsg, _ := nostr.CloseEnvelope(s.id).MarshalJSON()
		_ = c.write(closeMsg)
		c.forget(s.id)
		if s.h.closed != nil {
			s.h.closed("notice: " + msg)
		}
	}
}
