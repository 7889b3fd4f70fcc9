package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"

	"dtp-personal/engine/ingest"
)

// liveBuffer bounds the live events a subscription holds while its stored
// results are still being sent; past it the subscription is closed.
const liveBuffer = 1000

// conn is one WebSocket client. The read loop handles frames in order; one
// writer goroutine owns the socket's writes. OKs have their own queue whose
// capacity equals the in-flight bound, so a commit callback never blocks.
type conn struct {
	s       *Server
	id      string
	ws      *websocket.Conn
	batch   *batchingConn // under ws: lets writeLoop send queued messages at once
	ctx     context.Context
	cancel  context.CancelFunc
	limiter *tokenBucket // nil: not rate-limited (the owner's CLI)

	oks      chan []byte   // OK replies, never blocks (see inflight)
	out      *outQueue     // everything else, in order, bounded in bytes
	inflight chan struct{} // pushed events awaiting their OK

	mu   sync.Mutex
	subs map[string]*subscription

	negs map[string]*negentropy.Negentropy // NIP-77 sessions; read loop only

	tooSlow atomic.Bool
}

type subscription struct {
	filters nostr.Filters
	live    bool           // stored results sent: deliver directly
	pending []*nostr.Event // live events that arrived before EOSE
	sent    map[string]struct{}
}

func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	ip := clientAddress(r, s.cfg.Access().Proxies)
	if refusal := s.admit(ip); refusal != "" {
		s.refused.Inc("too-many-connections")
		http.Error(w, refusal, http.StatusServiceUnavailable)
		return
	}
	defer s.leave(ip)
	bw := &batchingWriter{ResponseWriter: w}
	ws, err := websocket.Accept(bw, r, &websocket.AcceptOptions{
		// ServeHTTP checked the origin by our own rule (allowed pages and
		// extensions), which the library's same-host rule cannot express
		InsecureSkipVerify: true,
	})
	if err != nil {
		return
	}
	ws.SetReadLimit(s.Limits().MaxFrameBytes)
	c := s.newConn(ws)
	c.batch = bw.conn
	if s.fromOwner(r) {
		c.limiter = nil
	}
	s.register(c)
	defer s.unregister(c)
	go c.writeLoop()
	c.readLoop()
	c.cancel()
	c.out.close()
	if !c.tooSlow.Load() { // a dropped client is being closed already (readLoop)
		_ = ws.Close(websocket.StatusNormalClosure, "")
	}
}

// newConn makes the state of one client connection.
func (s *Server) newConn(ws *websocket.Conn) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.nextID++
	id := "ws-" + strconv.FormatUint(s.nextID, 10)
	s.mu.Unlock()
	l := s.Limits()
	return &conn{
		s: s, id: id, ws: ws, ctx: ctx, cancel: cancel,
		limiter:  newTokenBucket(l.EventsPerSecond, l.EventsBurst),
		oks:      make(chan []byte, l.MaxInflightEvents),
		out:      newOutQueue(&s.queued),
		inflight: make(chan struct{}, l.MaxInflightEvents),
		subs:     make(map[string]*subscription),
		negs:     make(map[string]*negentropy.Negentropy),
	}
}

func (c *conn) readLoop() {
	// one registration for the connection's life: given a cancellable
	// context, coder/websocket registers (and allocates) one per read
	stop := context.AfterFunc(c.ctx, func() {
		if c.tooSlow.Load() { // with its reason, where the socket still takes a close frame
			_ = c.ws.Close(websocket.StatusPolicyViolation, tooSlowReason)
			return
		}
		c.ws.CloseNow()
	})
	defer stop()
	var msg bytes.Buffer // reused: handlers copy what they keep
	for {
		typ, r, err := c.ws.Reader(context.Background())
		if err != nil {
			return
		}
		msg.Reset()
		if _, err := msg.ReadFrom(r); err != nil {
			return
		}
		if typ != websocket.MessageText {
			c.notice("invalid: binary frames are not supported")
			continue
		}
		c.handle(msg.Bytes())
		if msg.Cap() > keptReadBuffer {
			msg = bytes.Buffer{}
		}
		if c.ctx.Err() != nil {
			return
		}
	}
}

// keptReadBuffer is the largest read buffer kept for the next message; a
// rare large frame's buffer is let go.
const keptReadBuffer = 64 << 10

// writeTimeout ends a connection whose client stopped reading.
const writeTimeout = 15 * time.Second

func (c *conn) writeLoop() {
	defer c.cancel()
	// armed only while writing: a client that stopped reading ends here
	stall := time.AfterFunc(writeTimeout, func() { c.ws.CloseNow() })
	stall.Stop()
	defer stall.Stop()
	for {
		b, ok := c.next()
		if !ok {
			select {
			case b = <-c.oks:
			case <-c.out.ready:
				continue
			case <-c.ctx.Done():
				return
			}
		}
		stall.Reset(writeTimeout)
		err := c.writeQueued(b)
		stall.Stop()
		if err != nil {
			return
		}
	}
}

// maxWriteRun bounds the messages writeQueued sends under one stall timer.
const maxWriteRun = 256

// writeQueued writes b and up to maxWriteRun messages queued meanwhile,
// collected into as few socket writes as batchMax allows. The writes take no
// context: the read loop closes the socket when the connection ends, and
// writeLoop's stall timer when a write hangs.
func (c *conn) writeQueued(b []byte) error {
	c.batch.hold()
	for n := 1; ; n++ {
		if err := c.ws.Write(context.Background(), websocket.MessageText, b); err != nil {
			c.batch.release()
			return err
		}
		if n == maxWriteRun {
			break
		}
		var more bool
		if b, more = c.next(); !more {
			break
		}
	}
	return c.batch.release()
}

// next takes the next queued frame without waiting: an OK first, as OKs
// are what pushing clients wait on.
func (c *conn) next() ([]byte, bool) {
	select {
	case b := <-c.oks:
		return b, true
	default:
		return c.out.pop()
	}
}

// send queues a frame in order, waiting while the client reads slowly (its
// queue holds MaxQueuedBytes).
func (c *conn) send(v ...any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	for {
		added, fit := c.out.push(b, c.s.Limits().MaxQueuedBytes)
		if added {
			c.s.shed()
		}
		if added || fit { // fit and not added: the connection is closing
			return
		}
		select {
		case <-c.out.room:
		case <-c.ctx.Done():
			return
		}
	}
}

func (c *conn) notice(msg string) { c.send("NOTICE", msg) }

func (c *conn) handle(data []byte) {
	frame, ok := splitFrame(data)
	if !ok || len(frame) == 0 {
		c.s.refused.Inc("unparseable-frame")
		c.notice("invalid: frame is not a JSON array of a NIP-01 message")
		return
	}
	var label string
	if err := json.Unmarshal(frame[0], &label); err != nil {
		c.notice("invalid: first element of a message must be a string")
		return
	}
	oversize := len(data) > c.s.Limits().MaxMessageBytes
	switch label {
	case "EVENT":
		c.handleEvent(frame, len(data), oversize)
	case "REQ", "COUNT", "RESOLVE", "ROOTS":
		if oversize {
			c.refuse(frame, label, c.oversizeRule(len(data)))
			return
		}
		switch label {
		case "REQ":
			c.handleReq(frame)
		case "COUNT":
			c.handleCount(frame)
		case "RESOLVE":
			c.handleResolve(frame)
		case "ROOTS":
			c.handleRoots(frame)
		}
	case "CLOSE":
		var subID string
		if len(frame) != 2 || json.Unmarshal(frame[1], &subID) != nil {
			c.notice("invalid: CLOSE needs one subscription id")
			return
		}
		c.mu.Lock()
		delete(c.subs, subID)
		c.mu.Unlock()
	case "NEG-OPEN", "NEG-MSG", "NEG-CLOSE":
		if oversize {
			c.negErr(frame, c.oversizeRule(len(data)))
			return
		}
		c.handleNeg(label, frame)
	case "AUTH":
		c.notice("invalid: this server does not ask for AUTH")
	default:
		c.notice(fmt.Sprintf("invalid: unknown message type %q", label))
	}
}

// refuse answers a request refused as a whole: a REQ or COUNT whose
// subscription id can be read gets CLOSED under it, anything else a NOTICE.
func (c *conn) refuse(frame []json.RawMessage, label, reason string) {
	if label == "REQ" || label == "COUNT" {
		if subID, ok := readSubID(frame); ok {
			c.closed(subID, reason)
			return
		}
	}
	c.notice(reason)
}

func (c *conn) oversizeRule(n int) string {
	c.s.refused.Inc("message-too-large")
	return fmt.Sprintf("invalid: message of %d bytes exceeds the limit of %d bytes", n, c.s.Limits().MaxMessageBytes)
}

func (c *conn) handleEvent(frame []json.RawMessage, size int, oversize bool) {
	if len(frame) != 2 {
		c.notice("invalid: EVENT needs exactly one event")
		return
	}
	// go-nostr's easyjson decoder, which json.Unmarshal would reach only
	// after validating frame[1] again (splitFrame did) and via reflection
	var ev nostr.Event
	if err := ev.UnmarshalJSON(frame[1]); err != nil {
		c.notice("invalid: event is not a NIP-01 event object: " + err.Error())
		return
	}
	switch {
	case oversize:
		c.ok(ev.ID, false, c.oversizeRule(size))
		return
	case c.limiter != nil && !c.limiter.take():
		c.s.refused.Inc("rate-limited")
		c.ok(ev.ID, false, fmt.Sprintf("rate-limited: more than %g events per second on this connection", c.s.Limits().EventsPerSecond))
		return
	}
	select {
	case c.inflight <- struct{}{}:
	case <-c.ctx.Done():
		return
	}
	err := c.s.cfg.Ingest.Submit(c.ctx, &ev, "push", func(r ingest.Result) {
		c.ok(r.ID, r.OK(), r.Message)
		<-c.inflight
	})
	if err != nil {
		<-c.inflight
	}
}

// ok queues an OK reply. Callers hold an in-flight slot or run on the read
// loop, so the queue has room.
func (c *conn) ok(id string, accepted bool, msg string) {
	select {
	case c.oks <- okFrame(id, accepted, msg):
	case <-c.ctx.Done():
	}
}

func (c *conn) closed(subID, reason string) { c.send("CLOSED", subID, reason) }

// parseFilters reads the subscription id and filters of a REQ or COUNT; a
// frame that does not parse is answered here (CLOSED, or NOTICE when even
// the subscription id is unusable) and ok is false.
func (c *conn) parseFilters(frame []json.RawMessage) (subID string, filters nostr.Filters, ok bool) {
	subID, filters, bad := c.readFilters(frame)
	switch {
	case bad == "":
		return subID, filters, true
	case subID == "":
		c.notice(bad)
	default:
		c.closed(subID, bad)
	}
	return "", nil, false
}

func (c *conn) readFilters(frame []json.RawMessage) (string, nostr.Filters, string) {
	if len(frame) < 2 {
		return "", nil, "invalid: missing subscription id"
	}
	subID, ok := readSubID(frame)
	if !ok {
		return "", nil, fmt.Sprintf("invalid: subscription id must be a string of 1 to %d characters", maxSubIDLength)
	}
	n := len(frame) - 2
	if n == 0 {
		return subID, nil, "invalid: at least one filter is required"
	}
	if most := c.s.Limits().MaxFilters; n > most {
		c.s.refused.Inc("too-many-filters")
		return subID, nil, fmt.Sprintf("invalid: %d filters exceed the limit of %d per request", n, most)
	}
	filters := make(nostr.Filters, n)
	for i, raw := range frame[2:] {
		if err := json.Unmarshal(raw, &filters[i]); err != nil {
			return subID, nil, "invalid: filter is not a NIP-01 filter object: " + err.Error()
		}
	}
	return subID, filters, ""
}

// maxSubIDLength is the longest subscription id, NIP-01's 64.
const maxSubIDLength = 64

// readSubID reads the subscription id of a REQ or COUNT frame.
func readSubID(frame []json.RawMessage) (string, bool) {
	var subID string
	if len(frame) < 2 || json.Unmarshal(frame[1], &subID) != nil || subID == "" || len(subID) > maxSubIDLength {
		return "", false
	}
	return subID, true
}

func (c *conn) handleReq(frame []json.RawMessage) {
	subID, filters, ok := c.parseFilters(frame)
	if !ok {
		return
	}
	sub := &subscription{filters: filters, sent: make(map[string]struct{})}
	most := c.s.Limits().MaxSubscriptions
	c.mu.Lock()
	if _, replacing := c.subs[subID]; !replacing && len(c.subs) >= most {
		c.mu.Unlock()
		c.s.refused.Inc("too-many-subscriptions")
		c.closed(subID, fmt.Sprintf("invalid: %d open subscriptions is the limit per connection", most))
		return
	}
	// registered before the query so that nothing committed meanwhile is missed
	c.subs[subID] = sub
	c.mu.Unlock()

	for _, f := range filters {
		if f.LimitZero {
			continue
		}
		// streamed: send waits while the client's queue is full, and the
		// store holds nothing meanwhile
		err := c.s.cfg.Events.QueryEach(c.ctx, f, c.s.Limits().MaxLimit, func(ev *nostr.Event) error {
			if _, dup := sub.sent[ev.ID]; !dup {
				sub.sent[ev.ID] = struct{}{}
				c.send("EVENT", subID, ev)
			}
			return c.ctx.Err()
		})
		if c.ctx.Err() != nil {
			return
		}
		if err != nil {
			c.closed(subID, "error: query failed: "+err.Error())
			c.mu.Lock()
			delete(c.subs, subID)
			c.mu.Unlock()
			return
		}
	}
	c.send("EOSE", subID)
	c.mu.Lock()
	pending := sub.pending
	sub.pending, sub.live = nil, true
	c.mu.Unlock()
	for _, ev := range pending {
		if _, dup := sub.sent[ev.ID]; !dup {
			c.send("EVENT", subID, ev)
		}
	}
	sub.sent = nil
}

func (c *conn) handleCount(frame []json.RawMessage) {
	subID, filters, ok := c.parseFilters(frame)
	if !ok {
		return
	}
	total, err := c.s.cfg.Events.Count(c.ctx, filters...)
	if err != nil {
		c.closed(subID, "error: count failed: "+err.Error())
		return
	}
	c.send("COUNT", subID, map[string]int64{"count": total})
}

func (c *conn) handleResolve(frame []json.RawMessage) {
	var reqID string
	var q ResolveQuery
	if len(frame) != 3 || json.Unmarshal(frame[1], &reqID) != nil || json.Unmarshal(frame[2], &q) != nil {
		c.notice(`invalid: RESOLVE is ["RESOLVE", <id>, {"subject": …}] or ["RESOLVE", <id>, {"subjects": [ … ]}]`)
		return
	}
	ans, err := c.s.resolve(c.ctx, q)
	if err != nil {
		c.send("RESOLVED", reqID, map[string]string{"error": err.Error()})
		return
	}
	c.send("RESOLVED", reqID, ans)
}

func (c *conn) handleRoots(frame []json.RawMessage) {
	var roots []string
	if len(frame) != 2 || json.Unmarshal(frame[1], &roots) != nil {
		c.notice(`invalid: ROOTS is ["ROOTS", [<hex pubkey>, …]]`)
		return
	}
	if c.s.cfg.Sessions == nil {
		c.notice("error: session roots are not available")
		return
	}
	if err := c.s.cfg.Sessions.SetSessionRoots(c.id, roots); err != nil {
		c.notice(err.Error())
		return
	}
	c.send("ROOTS", map[string]int{"count": len(roots)})
}

// deliver hands committed events to this connection's live subscriptions.
// It runs on the ingest writer goroutine, so it never blocks: a client that
// does not keep up is disconnected and can resubscribe with since.
func (c *conn) deliver(evs []*nostr.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for subID, sub := range c.subs {
		for _, ev := range evs {
			if !sub.filters.Match(ev) {
				continue
			}
			if !sub.live {
				if len(sub.pending) >= liveBuffer {
					c.dropTooSlow()
					return
				}
				sub.pending = append(sub.pending, ev)
				continue
			}
			b, err := json.Marshal([]any{"EVENT", subID, ev})
			if err != nil {
				continue
			}
			added, fit := c.out.push(b, c.s.Limits().MaxQueuedBytes)
			if !fit {
				c.dropTooSlow()
				return
			}
			if added {
				c.s.shed()
			}
		}
	}
}

// tooSlowReason is the close reason a dropped client sees (code 1008).
const tooSlowReason = "too slow: the client did not read what it was sent in time"

// dropTooSlow ends a connection that does not keep up, releasing what is
// queued for it at once.
func (c *conn) dropTooSlow() {
	if c.tooSlow.CompareAndSwap(false, true) {
		c.s.refused.Inc("too-slow")
	}
	c.out.close()
	c.cancel()
}

// tokenBucket limits pushes per connection.
type tokenBucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: time.Now()}
}

func (b *tokenBucket) take() bool {
	now := time.Now()
	b.tokens += now.Sub(b.last).Seconds() * b.rate
	if b.tokens > b.burst {
		b.tokens = b.burst
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
