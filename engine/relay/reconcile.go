package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"
)

// DefaultMaxMessage is the frame size we keep within when a relay does not
// publish NIP-11 limitation.max_message_length: what many relays accept.
const DefaultMaxMessage = 128 << 10

// negEnvelope is room for a negentropy frame's envelope around its message
// and filter: label, subscription id (at most 64 characters), quotes.
const negEnvelope = 128

// NegFrameLimit is the negentropy frame-size limit that keeps a NEG-OPEN or
// NEG-MSG within maxMessage bytes when other bytes of the frame (a filter)
// take used: go-nostr counts the message's bytes before hex doubles them.
// go-nostr accepts no limit below 4,096.
func NegFrameLimit(maxMessage, used int) int {
	return max(4096, (maxMessage-used-negEnvelope)/2)
}

// MaxReconcilesInFlight is how many NIP-77 reconciliations one connection
// runs at once; more wait for one to end. Relays bound them per connection
// (ours at 4, answering NEG-ERR past it; strfry at its subscription limit,
// answering a NOTICE that names no session), and a refusal for their number
// said nothing about NIP-77 itself but was taken for "unsupported", so one
// pass of parallel batches turned NIP-77 off for a day.
const MaxReconcilesInFlight = 4

// reconcileMax is the most held events a filter is worth reconciling with:
// what one paged REQ can return (SPEC §6.2); above it, paging decides.
const reconcileMax = maxPages * PageLimit

// reconcileRefusedError means the relay does not do NIP-77 for this filter:
// it answered NEG-ERR or CLOSED, sent a NOTICE saying it did not understand,
// sent what is not a negentropy message, or did not answer NEG-OPEN in time.
// The same data can still be paged. forQuery marks a NEG-ERR that refuses
// only this query for its size or the relay's load ("blocked: this query is
// too big"): the relay does NIP-77, and other filters may still reconcile.
type reconcileRefusedError struct {
	reason   string
	forQuery bool
}

func (e *reconcileRefusedError) Error() string { return "NIP-77 refused: " + e.reason }

// errReconcileStalled is a relay that stopped answering in the middle of a
// reconciliation: unresponsive, so the batch fails rather than falls back.
var errReconcileStalled = errors.New("reconciliation stalled")

// Reconciliation is the outcome of one NIP-77 reconciliation.
type Reconciliation struct {
	Need     []string // ids the relay holds and we lack, sorted
	Lacking  []string // our ids the relay does not hold, sorted
	messages int      // NEG-MSGs received
	bytes    int64    // size of the negentropy frames received
}

// negReply is one negentropy frame for a session, or why it ended.
type negReply struct {
	msg      string
	refused  string // NEG-ERR, CLOSED or NOTICE reason; "" for a NEG-MSG
	forQuery bool   // a NEG-ERR refusing only this query (queryLimit)
	size     int
}

type negSession struct {
	replies  chan negReply
	answered bool // a reply arrived; guarded by Conn.mu
}

// noticeWords mark a NOTICE as the relay not understanding a message, which
// is how relays without NIP-77 answer NEG-OPEN.
var noticeWords = []string{"unknown", "unsupported", "not supported", "parse", "bad msg", "invalid", "neg-"}

// Reconcile runs NIP-77 as initiator over f with our stamps local and
// returns what each side lacks. We never publish: Lacking is for the
// caller's accounting only. NEG-CLOSE is always sent. A relay that does not
// answer NEG-OPEN within the page timeout refuses (reconcileRefusedError);
// one that stops answering later has stalled (errReconcileStalled).
func (c *Conn) Reconcile(ctx context.Context, f nostr.Filter, local iter.Seq2[nostr.Timestamp, string]) (Reconciliation, error) {
	select {
	case c.negSlots <- struct{}{}:
		defer func() { <-c.negSlots }()
	case <-ctx.Done():
		return Reconciliation{}, ctx.Err()
	case <-c.ctx.Done():
		return Reconciliation{}, c.err()
	}
	vec := vector.New()
	for ts, id := range local {
		vec.Insert(ts, id)
	}
	vec.Seal()
	filter, err := json.Marshal(f)
	if err != nil {
		return Reconciliation{}, err
	}
	// our frames stay within what the relay accepts (the NEG-OPEN carries f)
	neg := negentropy.New(vec, NegFrameLimit(c.maxMessage, len(filter)))

	var rec Reconciliation
	stop := make(chan struct{})
	var wg sync.WaitGroup
	collect := func(ch chan string, into *[]string) {
		wg.Go(func() {
			for {
				select {
				case id, ok := <-ch:
					if !ok {
						return
					}
					*into = append(*into, id)
				case <-stop:
					return
				}
			}
		})
	}
	collect(neg.HaveNots, &rec.Need)
	collect(neg.Haves, &rec.Lacking)

	id, s := c.openNeg()
	defer func() {
		c.forgetNeg(id)
		msg, _ := json.Marshal([]string{"NEG-CLOSE", id})
		_ = c.write(msg)
	}()
	err = c.negotiate(ctx, id, s, filter, neg, &rec)
	if err != nil {
		close(stop) // the channels stay open: the collectors are told to end
		wg.Wait()
		return Reconciliation{messages: rec.messages, bytes: rec.bytes}, err
	}
	wg.Wait() // the last Reconcile closed the channels: every id is collected
	for _, ids := range []*[]string{&rec.Need, &rec.Lacking} {
		slices.Sort(*ids)
		*ids = slices.Compact(*ids)
	}
	return rec, nil
}

// negotiate exchanges messages until the initiator has nothing more to say.
func (c *Conn) negotiate(ctx context.Context, id string, s *negSession, filter json.RawMessage, neg *negentropy.Negentropy, rec *Reconciliation) error {
	open, err := json.Marshal([]any{"NEG-OPEN", id, filter, neg.Start()})
	if err != nil {
		return err
	}
	c.counts.negOpens.Add(1)
	if err := c.write(open); err != nil {
		return err
	}
	timer := time.NewTimer(c.opts.pageTimeout)
	defer timer.Stop()
	for {
		var reply negReply
		select {
		case reply = <-s.replies:
		case <-c.ctx.Done():
			return c.err()
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			if rec.messages == 0 {
				return &reconcileRefusedError{reason: "no answer to NEG-OPEN within " + c.opts.pageTimeout.String()}
			}
			return fmt.Errorf("%w: no answer within %s after %d messages", errReconcileStalled, c.opts.pageTimeout, rec.messages)
		}
		timer.Reset(c.opts.pageTimeout)
		rec.bytes += int64(reply.size)
		if reply.refused != "" {
			return &reconcileRefusedError{reason: reply.refused, forQuery: reply.forQuery}
		}
		rec.messages++
		next, err := neg.Reconcile(reply.msg)
		if err != nil {
			return &reconcileRefusedError{reason: "malformed NEG-MSG: " + err.Error()}
		}
		if next == "" {
			return nil
		}
		msg, _ := json.Marshal([]string{"NEG-MSG", id, next})
		if err := c.write(msg); err != nil {
			return err
		}
	}
}

func (c *Conn) openNeg() (string, *negSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextSub++
	id := "n" + strconv.FormatUint(c.nextSub, 36)
	s := &negSession{replies: make(chan negReply, 1)}
	c.negs[id] = s
	return id, s
}

func (c *Conn) forgetNeg(id string) {
	c.mu.Lock()
	delete(c.negs, id)
	c.mu.Unlock()
}

// deliverNeg hands a reply to session id; false when there is none. The
// relay answers each message once, so a reply that finds the previous one
// unread is surplus and dropped.
func (c *Conn) deliverNeg(id string, r negReply) bool {
	c.mu.Lock()
	s := c.negs[id]
	if s != nil {
		s.answered = true
	}
	c.mu.Unlock()
	if s == nil {
		return false
	}
	select {
	case s.replies <- r:
	default:
	}
	return true
}

var negPrefix = []byte(`["NEG-`)

// negFrame routes NEG-MSG and NEG-ERR (NEG-ERROR as go-nostr writes it);
// false when data is not a negentropy frame.
func (c *Conn) negFrame(data []byte) bool {
	if !bytes.HasPrefix(data, negPrefix) {
		return false
	}
	// label, id, message or reason; relays may add elements after them
	// (strfry: ["NEG-ERR", id, "blocked: too many query results", 50])
	var raw []json.RawMessage
	var label, id, text string
	if json.Unmarshal(data, &raw) != nil || len(raw) < 3 ||
		json.Unmarshal(raw[0], &label) != nil || json.Unmarshal(raw[1], &id) != nil || json.Unmarshal(raw[2], &text) != nil {
		c.counts.garbage.Add(1)
		return true
	}
	var r negReply
	switch label {
	case "NEG-MSG":
		r.msg = text
	case "NEG-ERR", "NEG-ERROR":
		r = c.negRefusal(label+": ", text)
	default:
		c.counts.garbage.Add(1)
		return true
	}
	r.size = len(data)
	c.deliverNeg(id, r)
	return true
}

// negRefusal is a reconciliation ended by the relay with reason. One
// refused until we authenticate says nothing against NIP-77: we answer the
// relay's challenge, and the query is paged (which asks again after AUTH).
func (c *Conn) negRefusal(label, reason string) negReply {
	r := negReply{refused: label + reason, forQuery: queryLimit(reason), size: len(reason)}
	if reasonPrefix(reason) == prefixAuthRequired {
		r.forQuery = true
		c.authenticate()
	}
	return r
}

// noticeToNeg ends every reconciliation still waiting for its first answer
// when a NOTICE says the relay did not understand a message, or refuses
// work for load (strfry's "too many concurrent NEG requests" names no
// session): that refuses those queries only, as a NEG-ERR would.
func (c *Conn) noticeToNeg(msg string) {
	lower := strings.ToLower(msg)
	load := isRefusal(msg)
	if !load && !slices.ContainsFunc(noticeWords, func(w string) bool { return strings.Contains(lower, w) }) {
		return
	}
	c.mu.Lock()
	var waiting []string
	for id, s := range c.negs {
		if !s.answered {
			waiting = append(waiting, id)
		}
	}
	c.mu.Unlock()
	for _, id := range waiting {
		c.deliverNeg(id, negReply{refused: "notice: " + msg, forQuery: load, size: len(msg)})
	}
}

// queryLimit reports whether a NEG-ERR reason refuses one query for its
// size ("too big", NIP-77's own example) or for load ("4 open
// reconciliations is the limit per connection", ours), not NIP-77 itself.
func queryLimit(reason string) bool {
	lower := strings.ToLower(reason)
	return isRefusal(reason) || strings.Contains(lower, "too big") || strings.Contains(lower, "limit")
}

// IsReconcileRefused reports whether err means the relay does not do NIP-77.
func IsReconcileRefused(err error) bool {
	var refused *reconcileRefusedError
	return errors.As(err, &refused)
}
