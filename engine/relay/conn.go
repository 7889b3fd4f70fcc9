// Package relay is the client side of the Nostr wire (NIP-01, NIP-42, NIP-11,
// NIP-77) for both sync profiles, trust and repository: a connection with
// subscriptions, backwards paging with until and reconciliation (Conn); per
// relay, its health (engine/health's state machine of SPEC §6.5, driven and
// saved by Link) and the one connection lifecycle, wait → dial → serve →
// release (Links.Keep, Links.Use); and the one live session above it
// (Session: live set, consumer, ingest batches, overflow recovery), one per
// relay in a Supervisor. A profile gives only its filters, catch-up and
// cursors (LiveProfile).
//
// Events are handed on unverified: the ingest pipeline verifies ids and
// signatures off the socket's read loop. The connection only drops events
// that do not match the subscription that received them.
package relay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// Options configure a connection. Zero values take the defaults.
type Options struct {
	// authKey is the hex secret key used to answer NIP-42 challenges;
	// "" = never authenticate.
	authKey string
	// Limits are the relay's NIP-11 limits as last read, used when its
	// document cannot be read at dial.
	limits      relayLimits
	dialTimeout time.Duration // default 10 s
	pageTimeout time.Duration // longest wait for one page's EOSE; default 30 s
	// onUseful is called (on the read loop) at every EOSE.
	onUseful func()
	// onNotice is called (on the read loop) with every NOTICE.
	onNotice func(msg string)
	// Counts, when set, are shared with the connection's link, so its
	// counters run over every connection; nil = the connection's own.
	counts *frameCounts
	// allowance, when set, is shared with the connection's link: what the
	// relay's refusals taught of how many REQs it allows outlives the
	// connection; nil = the connection's own.
	allowance *learnedAllowance
	// Check, when set, is asked about every address the dial connects to
	// (dialguard.go); nil = any address.
	Check AddressCheck
}

func (o Options) withDefaults() Options {
	if o.dialTimeout <= 0 {
		o.dialTimeout = 10 * time.Second
	}
	if o.pageTimeout <= 0 {
		o.pageTimeout = 30 * time.Second
	}
	return o
}

// Handler receives one subscription's messages. Callbacks run on the
// connection's read loop: a slow callback slows the socket (flow control).
type Handler struct {
	Event  func(ev *nostr.Event)
	EOSE   func()
	closed func(reason string) // CLOSED from the relay (not after our own Close)
}

// Conn is one WebSocket connection to a relay.
type Conn struct {
	url  string
	ws   *websocket.Conn
	opts Options

	ctx    context.Context
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	subs      map[string]*Sub
	negs      map[string]*negSession // NIP-77 reconciliations
	negSlots  chan struct{}          // one token per reconciliation running (MaxReconcilesInFlight)
	nextSub   uint64
	challenge string
	authID    string // AUTH event awaiting its OK
	authed    bool
	learned   int  // page size the relay was seen to cap at, 0 = none
	honored   bool // the relay once served a full page of our limit

	maxLimit   int // NIP-11 limitation.max_limit, 0 = not published
	maxMessage int // NIP-11 limitation.max_message_length, else DefaultMaxMessage
	limits     relayLimits
	allowed    *learnedAllowance // REQs the relay was seen to allow at once (a refusal)
	freed      chan struct{}     // closed (and replaced) whenever a subscription ends
	onLowered  []func()          // told when allowed drops
	coolUntil  time.Time         // no page is asked before this: the relay said it is rate-limiting

	// unanswered are the REQs we stopped waiting for before the relay
	// answered them: closed by us (a repack closes every REQ and sends
	// fewer), or ended by a refusing NOTICE, which names no REQ and so ends
	// every REQ waiting when only one was refused. A refusing NOTICE may
	// still come for each. A relay answers REQs in the order they were sent,
	// so an EOSE or CLOSED for a REQ shows that every earlier one was
	// answered already.
	unanswered []owedReq

	counts *frameCounts
}

// frameCounts count the traffic with a relay (what we asked, what it sent,
// and what of that could not be used), over every connection that shares
// them.
type frameCounts struct {
	garbage    atomic.Int64 // frames that were not valid relay messages
	mismatched atomic.Int64 // events that did not match their subscription's filters
	refusals   atomic.Int64 // NOTICEs and CLOSEDs refusing work for load
	reqs       atomic.Int64 // REQs sent (a page, a live subscription)
	negOpens   atomic.Int64 // NIP-77 reconciliations opened (NEG-OPEN)
	received   atomic.Int64 // bytes of the frames received
}

// requests counts the REQs sent.
func (f *frameCounts) requests() int64 { return f.reqs.Load() }

// reconciliations counts the NIP-77 reconciliations opened.
func (f *frameCounts) reconciliations() int64 { return f.negOpens.Load() }

// bytesReceived counts the bytes of the frames received (before any
// WebSocket compression is undone: the messages' own size).
func (f *frameCounts) bytesReceived() int64 { return f.received.Load() }

// Garbage counts frames that were not valid relay messages.
func (f *frameCounts) Garbage() int64 { return f.garbage.Load() }

// Mismatched counts events that did not match their subscription's filters.
func (f *frameCounts) Mismatched() int64 { return f.mismatched.Load() }

// Refusals counts NOTICEs and CLOSEDs that refused work for load (isRefusal).
func (f *frameCounts) Refusals() int64 { return f.refusals.Load() }

// errClosedByUs is the cause of a connection closed with Close.
var errClosedByUs = errors.New("closed by client")

// Dial connects to a relay and reads its NIP-11 document (max_limit,
// max_message_length, max_subscriptions); when that fails, opts.Limits (the
// last document read) stand.
func Dial(ctx context.Context, url string, opts Options) (*Conn, error) {
	opts = opts.withDefaults()
	dctx, cancel := context.WithTimeout(ctx, opts.dialTimeout)
	defer cancel()
	limits := opts.limits
	client := guardedClient(opts.Check, opts.dialTimeout)
	if client != nil {
		defer client.CloseIdleConnections() // the NIP-11 request's; the WebSocket's is taken over
	}
	if info, err := fetchInfo(dctx, client, url); err == nil { // optional: most fields are advisory
		limits = relayLimits{published: true}
		if l := info.Limitation; l != nil {
			limits.maxLimit, limits.maxMessageLength, limits.maxSubscriptions = l.MaxLimit, l.MaxMessageLength, l.MaxSubscriptions
		}
	}
	ws, _, err := websocket.Dial(dctx, url, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	ws.SetReadLimit(16 << 20)
	c := &Conn{url: url, ws: ws, opts: opts, subs: map[string]*Sub{}, negs: map[string]*negSession{}, negSlots: make(chan struct{}, MaxReconcilesInFlight),
		limits: limits, maxLimit: limits.maxLimit, maxMessage: DefaultMaxMessage, freed: make(chan struct{}), counts: opts.counts}
	if c.counts == nil {
		c.counts = &frameCounts{}
	}
	if c.allowed = opts.allowance; c.allowed == nil {
		c.allowed = &learnedAllowance{}
	}
	if limits.maxMessageLength > 0 {
		c.maxMessage = limits.maxMessageLength
	}
	c.ctx, c.cancel = context.WithCancelCause(context.Background())
	go c.readLoop()
	return c, nil
}

// URL is the relay's address.
func (c *Conn) URL() string { return c.url }

// done is closed when the connection ends.
func (c *Conn) done() <-chan struct{} { return c.ctx.Done() }

// err is why the connection ended: nil while open, errClosedByUs after Close.
func (c *Conn) err() error { return context.Cause(c.ctx) }

// dropped reports whether the connection ended without us closing it.
func (c *Conn) dropped() bool {
	err := c.err()
	return err != nil && !errors.Is(err, errClosedByUs)
}

// Counts are the connection's frame counters (its link's, when shared).
func (c *Conn) Counts() *frameCounts { return c.counts }

// Close ends the connection.
func (c *Conn) Close() {
	c.cancel(errClosedByUs)
	_ = c.ws.Close(websocket.StatusNormalClosure, "")
}

// Sub is one open subscription.
type Sub struct {
	c            *Conn
	id           string
	seq          uint64 // REQs are answered in the order of this number
	filters      nostr.Filters
	h            Handler
	awaitingAuth bool // CLOSED auth-required; the REQ is re-sent after AUTH succeeds
	retried      bool // one re-send per subscription
	eosed        bool // the relay sent EOSE: the REQ was accepted
	openAtSend   int  // our REQs open on the connection once this one was sent, itself included
	tooMany      bool // refused for the number of REQs open: fewer may be accepted
	// writing is made when the REQ's write starts and closed when it
	// returns; nil before. A REQ not yet written cannot be the one a NOTICE
	// refused, and a CLOSE must not overtake its REQ: the relay would then
	// keep the subscription open for good, holding one of its allowance.
	writing chan struct{}
}

// Subscribe opens a subscription with filters, whatever the relay allows:
// the caller keeps within Allowance (LiveSet does).
func (c *Conn) Subscribe(filters nostr.Filters, h Handler) (*Sub, error) {
	c.mu.Lock()
	s := c.newSubLocked(filters, h)
	c.mu.Unlock()
	return c.open(s)
}

func (c *Conn) newSubLocked(filters nostr.Filters, h Handler) *Sub {
	c.nextSub++
	s := &Sub{c: c, id: "s" + strconv.FormatUint(c.nextSub, 36), seq: c.nextSub, filters: filters, h: h}
	c.subs[s.id] = s
	s.openAtSend = len(c.subs)
	return s
}

func (c *Conn) open(s *Sub) (*Sub, error) {
	if err := c.sendReq(s); err != nil {
		c.forget(s.id)
		return nil, err
	}
	return s, nil
}

// close ends the subscription (CLOSE to the relay). The CLOSE goes out
// before the subscription stops counting toward the Allowance, so the relay
// reads it before a REQ sent in its room.
func (s *Sub) close() {
	c := s.c
	c.mu.Lock()
	_, open := c.subs[s.id]
	c.mu.Unlock()
	if open {
		msg, _ := nostr.CloseEnvelope(s.id).MarshalJSON()
		_ = c.write(msg)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, open := c.subs[s.id]; open && s.writing != nil && !s.eosed && !s.awaitingAuth {
		c.oweLocked(s)
	}
	c.endLocked(s.id)
}

// maxUnanswered bounds Conn.unanswered: a relay that never answers a REQ
// closed before its EOSE would otherwise grow it for the connection's life.
const maxUnanswered = 2 * maxReqsInFlight

// owedReq is a REQ in Conn.unanswered.
type owedReq struct {
	id  string
	seq uint64
}

// oweLocked notes that a refusing NOTICE may still come for s, which we no
// longer wait for; c.mu is held.
func (c *Conn) oweLocked(s *Sub) {
	if len(c.unanswered) == maxUnanswered {
		c.unanswered = c.unanswered[1:]
	}
	c.unanswered = append(c.unanswered, owedReq{s.id, s.seq})
}

// answeredLocked notes an EOSE or CLOSED for the REQ of seq: no NOTICE
// will come for it or for any sent before it; c.mu is held.
func (c *Conn) answeredLocked(seq uint64) {
	c.unanswered = slices.DeleteFunc(c.unanswered, func(o owedReq) bool { return o.seq <= seq })
}

// answeredUnknownLocked is answeredLocked for a REQ we no longer hold,
// known only by id; c.mu is held.
func (c *Conn) answeredUnknownLocked(id string) {
	if i := slices.IndexFunc(c.unanswered, func(o owedReq) bool { return o.id == id }); i >= 0 {
		c.answeredLocked(c.unanswered[i].seq)
	}
}

// Filters are the subscription's filters.
func (s *Sub) Filters() nostr.Filters { return s.filters }

func (c *Conn) forget(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.subs[id]
	c.endLocked(id)
	return ok
}

// endLocked forgets subscription id and wakes REQs waiting for room; c.mu
// is held.
func (c *Conn) endLocked(id string) {
	if _, ok := c.subs[id]; !ok {
		return
	}
	delete(c.subs, id)
	close(c.freed)
	c.freed = make(chan struct{})
}

func (c *Conn) sendReq(s *Sub) error {
	msg, err := nostr.ReqEnvelope{SubscriptionID: s.id, Filters: s.filters}.MarshalJSON()
	if err != nil {
		return err
	}
	c.counts.reqs.Add(1)
	written := make(chan struct{})
	c.mu.Lock()
	s.writing = written
	c.mu.Unlock()
	defer close(written)
	return c.write(msg)
}

func (c *Conn) write(msg []byte) error {
	ctx, cancel := context.WithTimeout(c.ctx, c.opts.pageTimeout)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		if cause := c.err(); cause != nil {
			return cause
		}
		return err
	}
	return nil
}

func (c *Conn) readLoop() {
	parser := nostr.NewMessageParser()
	for {
		_, data, err := c.ws.Read(c.ctx)
		if err != nil {
			c.cancel(fmt.Errorf("connection to %s lost: %w", c.url, err))
			return
		}
		c.counts.received.Add(int64(len(data)))
		if c.negFrame(data) {
			continue
		}
		env, _ := parser.ParseMessage(string(data))
		if env == nil {
			c.counts.garbage.Add(1)
			continue
		}
		c.dispatch(env)
	}
}

func (c *Conn) sub(id string) *Sub {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.subs[id]
}

func (c *Conn) dispatch(env nostr.Envelope) {
	switch e := env.(type) {
	case *nostr.EventEnvelope:
		if e.SubscriptionID == nil {
			c.counts.garbage.Add(1)
			return
		}
		s := c.sub(*e.SubscriptionID)
		if s == nil {
			return // late event of a closed subscription
		}
		if !s.filters.Match(&e.Event) {
			c.counts.mismatched.Add(1)
			return
		}
		ev := e.Event
		s.h.Event(&ev)
	case *nostr.EOSEEnvelope:
		if s := c.eose(string(*e)); s != nil {
			if c.opts.onUseful != nil {
				c.opts.onUseful()
			}
			s.h.EOSE()
		}
	case *nostr.ClosedEnvelope:
		c.closed(e.SubscriptionID, e.Reason)
	case *nostr.NoticeEnvelope:
		c.notice(string(*e))
	case *nostr.AuthEnvelope:
		if e.Challenge != nil {
			c.mu.Lock()
			c.challenge, c.authed = *e.Challenge, false
			c.mu.Unlock()
			c.authenticate()
		}
	case *nostr.OKEnvelope:
		c.authAnswered(e.EventID, e.OK, e.Reason)
	}
}

func (c *Conn) eose(id string) *Sub {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.subs[id]
	if s != nil {
		s.eosed = true
		c.answeredLocked(s.seq)
	} else {
		c.answeredUnknownLocked(id)
	}
	return s
}

// closed handles CLOSED: auth-required closes wait for AUTH, then the REQ
// is sent once more; anything else is passed to the handler.
func (c *Conn) closed(id, reason string) {
	c.mu.Lock()
	s := c.subs[id]
	if s == nil {
		c.answeredUnknownLocked(id)
		c.mu.Unlock()
		c.deliverNeg(id, c.negRefusal("closed: ", reason))
		return
	}
	c.answeredLocked(s.seq)
	if reasonPrefix(reason) == prefixAuthRequired && c.opts.authKey != "" && !s.retried {
		s.retried = true
		if c.authed {
			c.mu.Unlock()
			_ = c.sendReq(s)
			return
		}
		s.awaitingAuth = true
		c.mu.Unlock()
		c.authenticate()
		return
	}
	refused := isRefusal(reason)
	if refused {
		c.counts.refusals.Add(1)
	}
	lowered := refused && c.refusedLocked(s.openAtSend, s)
	c.endLocked(id)
	c.mu.Unlock()
	if s.h.closed != nil {
		s.h.closed(reason)
	}
	if lowered {
		c.allowanceLowered()
	}
}

// authenticate answers the last challenge with a signed kind-22242 event.
func (c *Conn) authenticate() {
	c.mu.Lock()
	if c.opts.authKey == "" || c.challenge == "" || c.authID != "" || c.authed {
		c.mu.Unlock()
		return
	}
	ev := nostr.Event{
		CreatedAt: nostr.Now(),
		Kind:      nostr.KindClientAuthentication,
		Tags:      nostr.Tags{{"relay", c.url}, {"challenge", c.challenge}},
	}
	if err := ev.Sign(c.opts.authKey); err != nil {
		c.mu.Unlock()
		return
	}
	c.authID = ev.ID
	c.mu.Unlock()
	msg, _ := nostr.AuthEnvelope{Event: ev}.MarshalJSON()
	_ = c.write(msg)
}

func (c *Conn) authAnswered(id string, ok bool, reason string) {
	c.mu.Lock()
	if id == "" || id != c.authID {
		c.mu.Unlock()
		return
	}
	c.authID, c.authed = "", ok
	var waiting []*Sub
	for _, s := range c.subs {
		if s.awaitingAuth {
			s.awaitingAuth = false
			waiting = append(waiting, s)
		}
	}
	if !ok {
		for _, s := range waiting {
			c.endLocked(s.id)
		}
	}
	c.mu.Unlock()
	for _, s := range waiting {
		if ok {
			_ = c.sendReq(s)
		} else if s.h.closed != nil {
			s.h.closed("auth-required: authentication refused: " + reason)
		}
	}
}
