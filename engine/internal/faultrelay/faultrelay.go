// Package faultrelay is a real WebSocket Nostr relay on 127.0.0.1 that holds
// events in memory (NIP-01 REQ/EVENT/EOSE/CLOSE, NIP-11, NIP-42, NIP-77) and can
// misbehave on demand: cap limit, drop mid-page, stall, send garbage,
// require AUTH, accept and then drop, refuse REQs past a subscription limit
// as strfry does, refuse or stall NIP-77. A burst of Publish calls floods live
// subscribers. Tests only; it never verifies or stores signatures' meaning.
package faultrelay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip42"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"dtp-personal/internal/testutil"
)

// Mode is how the relay misbehaves. The zero Mode is a well-behaved relay.
type Mode struct {
	CapLimit        int  // at most this many events per filter, whatever was asked (0 = no cap)
	AdvertiseCap    bool // publish CapLimit as NIP-11 limitation.max_limit
	DropAfter       int  // abruptly close a connection after it was sent this many events (0 = never)
	Stall           bool // accept REQs and never answer them
	StallFirst      int  // accept the relay's first this many REQs and never answer them
	Garbage         bool // send a malformed frame before every event
	AuthRequired    bool // send a challenge; answer REQs with CLOSED auth-required until authenticated
	DropAfterAccept bool // close every connection right after the WebSocket handshake
	// MaxSubscriptions is the most open subscriptions per connection (0 = no
	// limit); an excess REQ gets only a NOTICE, no EOSE and no CLOSED (strfry).
	MaxSubscriptions int
	// AdvertiseSubscriptions publishes MaxSubscriptions as NIP-11
	// limitation.max_subscriptions.
	AdvertiseSubscriptions bool
	NoInfo                 bool // answer NIP-11 requests with 503 (the document cannot be read)
	// ErrorPrefix goes before every CLOSED and NEG-ERR reason: "ERROR: " as
	// strfry writes them ("ERROR: auth-required: ...").
	ErrorPrefix string
	// NegErrExtra adds a fourth element to every NEG-ERR, as strfry's
	// ["NEG-ERR", id, "blocked: too many query results", 50].
	NegErrExtra bool
	// MaxMessageLength is published as NIP-11 limitation.max_message_length;
	// a larger frame ends the connection, as strfry's websocket limit does (0
	// = 16 MiB, unpublished).
	MaxMessageLength int
	// NIP-77: answered by default, with go-nostr's negentropy as responder.
	// NegRefusal is how NEG-OPEN is refused: "NEG-ERR", "NEG-ERROR" (as
	// go-nostr writes it), "CLOSED", "NOTICE" (a relay without NIP-77),
	// "silent" (no answer); "" = not refused.
	NegRefusal    string
	NegStallAfter int // answer this many negentropy messages (NEG-OPEN included), then none (0 = never stall)
	NegMaxItems   int // NEG-OPEN over more events than this is refused as too big (0 = no limit)
	// MaxNegSessions is the most reconciliations open per connection (0 = no
	// limit); one more gets only a NOTICE naming no session, as strfry's
	// "too many concurrent NEG requests".
	MaxNegSessions int
}

// Relay is a running fault-injecting relay.
type Relay struct {
	URL string

	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	mode     Mode
	byAuthor map[string][]*stored // newest first
	all      []*stored            // newest first
	ids      map[string]bool
	conns    map[*conn]bool

	reqs        atomic.Int64
	eventsSent  atomic.Int64
	negAnswers  atomic.Int64
	refusedReqs atomic.Int64
	refusedNegs atomic.Int64
	authed      sync.Map // pubkey -> true
}

type stored struct {
	ev  *nostr.Event
	raw []byte
}

// Start listens on 127.0.0.1 on a free port.
func Start() (*Relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{
		URL: "ws://" + ln.Addr().String(), ln: ln,
		byAuthor: map[string][]*stored{}, ids: map[string]bool{}, conns: map[*conn]bool{},
	}
	r.srv = &http.Server{Handler: r}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Close stops the relay and drops every connection.
func (r *Relay) Close() {
	r.DropAll()
	_ = r.srv.Close()
}

// SetMode changes the behaviour for new messages and connections.
func (r *Relay) SetMode(m Mode) {
	r.mu.Lock()
	r.mode = m
	r.mu.Unlock()
}

func (r *Relay) currentMode() Mode {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mode
}

// Reqs counts REQ messages received.
func (r *Relay) Reqs() int64 { return r.reqs.Load() }

// EventsSent counts EVENT messages sent (stored and live).
func (r *Relay) EventsSent() int64 { return r.eventsSent.Load() }

// Authenticated reports whether pubkey passed NIP-42 on some connection.
func (r *Relay) Authenticated(pubkey string) bool {
	_, ok := r.authed.Load(pubkey)
	return ok
}

// RefusedReqs counts REQs refused for the subscription limit.
func (r *Relay) RefusedReqs() int64 { return r.refusedReqs.Load() }

// RefusedNegs counts NEG-OPENs refused for the reconciliation limit.
func (r *Relay) RefusedNegs() int64 { return r.refusedNegs.Load() }

// NegAnswers counts negentropy messages answered (NEG-MSG or NEG-ERR).
func (r *Relay) NegAnswers() int64 { return r.negAnswers.Load() }

// Conns counts the connections being served. A connection the client closed
// is counted until the relay has answered every message it read from it.
func (r *Relay) Conns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

// ResetCounters zeroes Reqs, EventsSent and NegAnswers.
func (r *Relay) ResetCounters() {
	r.reqs.Store(0)
	r.eventsSent.Store(0)
	r.negAnswers.Store(0)
}

// DropAll abruptly closes every open connection.
func (r *Relay) DropAll() {
	for _, c := range r.openConns() {
		c.ws.CloseNow()
	}
}

func (r *Relay) openConns() []*conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	conns := make([]*conn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	return conns
}

// CloseSubscriptions ends every live subscription on every connection with
// a CLOSED carrying reason, as a relay restarting its subscriptions does.
func (r *Relay) CloseSubscriptions(reason string) {
	for _, c := range r.openConns() {
		c.mu.Lock()
		ids := make([]string, 0, len(c.subs))
		for id := range c.subs {
			ids = append(ids, id)
		}
		clear(c.subs)
		c.mu.Unlock()
		for _, id := range ids {
			_ = c.send(context.Background(), "CLOSED", id, reason)
		}
	}
}

// Publish stores events (ignoring ids already held) and pushes them at once
// to every live subscription they match.
func (r *Relay) Publish(evs ...*nostr.Event) {
	r.mu.Lock()
	var added []*stored
	for _, ev := range evs {
		if r.ids[ev.ID] {
			continue
		}
		raw, err := json.Marshal(ev)
		if err != nil {
			continue
		}
		s := &stored{ev: ev, raw: raw}
		r.ids[ev.ID] = true
		r.byAuthor[ev.PubKey] = append(r.byAuthor[ev.PubKey], s)
		r.all = append(r.all, s)
		added = append(added, s)
	}
	// Sort once per call: a bulk load stays O(n log n).
	touched := map[string]bool{}
	for _, s := range added {
		if !touched[s.ev.PubKey] {
			touched[s.ev.PubKey] = true
			slices.SortFunc(r.byAuthor[s.ev.PubKey], newer)
		}
	}
	if len(added) > 0 {
		slices.SortFunc(r.all, newer)
	}
	conns := make([]*conn, 0, len(r.conns))
	for c := range r.conns {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	for _, c := range conns {
		c.push(added)
	}
}

// newer orders events newest first, ties by id ascending (NIP-01 order).
func newer(a, b *stored) int { return testutil.NewestFirst(a.ev, b.ev) }

// query answers one filter, newest first, limit applied (and capped).
func (r *Relay) query(f nostr.Filter, capLimit int) []*stored {
	r.mu.Lock()
	var candidates []*stored
	if len(f.Authors) > 0 {
		for _, a := range f.Authors {
			candidates = append(candidates, r.byAuthor[a]...)
		}
		slices.SortFunc(candidates, newer)
	} else {
		candidates = r.all
	}
	limit := f.Limit
	if f.LimitZero {
		limit = 0
	} else if limit <= 0 {
		limit = len(candidates)
	}
	if capLimit > 0 && limit > capLimit {
		limit = capLimit
	}
	var out []*stored
	for _, s := range candidates {
		if len(out) >= limit {
			break
		}
		if f.Matches(s.ev) {
			out = append(out, s)
		}
	}
	r.mu.Unlock()
	return out
}

// ServeHTTP answers NIP-11 documents and WebSocket upgrades.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	mode := r.currentMode()
	if req.Header.Get("Upgrade") == "" {
		if mode.NoInfo {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		doc := map[string]any{"name": "faultrelay", "supported_nips": []int{1, 11, 42}}
		limitation := map[string]any{}
		if mode.AdvertiseCap && mode.CapLimit > 0 {
			limitation["max_limit"] = mode.CapLimit
		}
		if mode.MaxMessageLength > 0 {
			limitation["max_message_length"] = mode.MaxMessageLength
		}
		if mode.AdvertiseSubscriptions && mode.MaxSubscriptions > 0 {
			limitation["max_subscriptions"] = mode.MaxSubscriptions
		}
		if len(limitation) > 0 {
			doc["limitation"] = limitation
		}
		w.Header().Set("Content-Type", "application/nostr+json")
		_ = json.NewEncoder(w).Encode(doc)
		return
	}
	ws, err := websocket.Accept(w, req, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(16 << 20)
	if mode.MaxMessageLength > 0 {
		ws.SetReadLimit(int64(mode.MaxMessageLength))
	}
	if mode.DropAfterAccept {
		ws.CloseNow()
		return
	}
	c := &conn{r: r, ws: ws, subs: map[string]*liveSub{}, negs: map[string]*negentropy.Negentropy{}, challenge: nostr.GeneratePrivateKey()[:32]}
	r.mu.Lock()
	r.conns[c] = true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
		ws.CloseNow()
	}()
	c.serve(req.Context(), mode)
}

type conn struct {
	r         *Relay
	ws        *websocket.Conn
	challenge string
	sent      atomic.Int64

	mu     sync.Mutex
	subs   map[string]*liveSub // open subscriptions, registered before their query
	authed bool

	negs map[string]*negentropy.Negentropy // open reconciliations; read loop only
}

// liveSub is one open subscription. It is registered before its stored
// events are read, as a real relay does, so an event published meanwhile is
// pushed rather than missed; sent keeps it from going out twice.
type liveSub struct {
	filters nostr.Filters
	sent    map[string]bool
}

// claim reports whether ev should go out on sub id now (open, not yet sent).
func (c *conn) claim(id, evID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	sub := c.subs[id]
	if sub == nil || sub.sent[evID] {
		return false
	}
	sub.sent[evID] = true
	return true
}

func (c *conn) send(ctx context.Context, v ...any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.ws.Write(ctx, websocket.MessageText, b)
}

var errDropped = errors.New("dropped by fault mode")

// sendEvent writes one EVENT, with the mode's garbage and mid-page drops.
func (c *conn) sendEvent(ctx context.Context, subID string, s *stored) error {
	mode := c.r.currentMode()
	if mode.Garbage {
		_ = c.ws.Write(ctx, websocket.MessageText, []byte(`["EVENT","`+subID+`",{"id":`))
	}
	msg := make([]byte, 0, len(s.raw)+len(subID)+16)
	msg = append(msg, `["EVENT",`...)
	msg, _ = appendJSONString(msg, subID)
	msg = append(msg, ',')
	msg = append(msg, s.raw...)
	msg = append(msg, ']')
	if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		return err
	}
	c.r.eventsSent.Add(1)
	if n := c.sent.Add(1); mode.DropAfter > 0 && n >= int64(mode.DropAfter) {
		c.ws.CloseNow()
		return errDropped
	}
	return nil
}

func appendJSONString(dst []byte, s string) ([]byte, error) {
	b, err := json.Marshal(s)
	return append(dst, b...), err
}

func (c *conn) serve(ctx context.Context, mode Mode) {
	if mode.AuthRequired {
		if err := c.send(ctx, "AUTH", c.challenge); err != nil {
			return
		}
	}
	parser := nostr.NewMessageParser()
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			return
		}
		if bytes.HasPrefix(data, []byte(`["NEG-`)) {
			if c.neg(ctx, data) != nil {
				return
			}
			continue
		}
		env, _ := parser.ParseMessage(string(data))
		switch e := env.(type) {
		case *nostr.ReqEnvelope:
			if c.req(ctx, e) != nil {
				return
			}
		case *nostr.CloseEnvelope:
			c.mu.Lock()
			delete(c.subs, string(*e))
			c.mu.Unlock()
		case *nostr.AuthEnvelope:
			pubkey, ok := nip42.ValidateAuthEvent(&e.Event, c.challenge, c.r.URL)
			reason := ""
			if ok {
				c.mu.Lock()
				c.authed = true
				c.mu.Unlock()
				c.r.authed.Store(pubkey, true)
			} else {
				reason = "invalid: bad auth event"
			}
			if c.send(ctx, "OK", e.Event.ID, ok, reason) != nil {
				return
			}
		}
	}
}

func (c *conn) req(ctx context.Context, e *nostr.ReqEnvelope) error {
	n := c.r.reqs.Add(1)
	mode := c.r.currentMode()
	c.mu.Lock()
	authed := c.authed
	c.mu.Unlock()
	if mode.AuthRequired && !authed {
		return c.send(ctx, "CLOSED", e.SubscriptionID, mode.ErrorPrefix+"auth-required: this relay serves authenticated clients only")
	}
	if mode.Stall || n <= int64(mode.StallFirst) {
		return nil
	}
	if c.full(e.SubscriptionID, mode.MaxSubscriptions) {
		c.r.refusedReqs.Add(1)
		return c.send(ctx, "NOTICE", "ERROR: too many concurrent REQs")
	}
	c.mu.Lock()
	c.subs[e.SubscriptionID] = &liveSub{filters: e.Filters, sent: map[string]bool{}}
	c.mu.Unlock()
	for _, f := range e.Filters {
		for _, s := range c.r.query(f, mode.CapLimit) {
			if !c.claim(e.SubscriptionID, s.ev.ID) {
				continue
			}
			if err := c.sendEvent(ctx, e.SubscriptionID, s); err != nil {
				return err
			}
		}
	}
	return c.send(ctx, "EOSE", e.SubscriptionID)
}

// neg answers NEG-OPEN, NEG-MSG and NEG-CLOSE as go-nostr's responder does,
// with the mode's refusals and stalls.
func (c *conn) neg(ctx context.Context, data []byte) error {
	var frame []json.RawMessage
	if json.Unmarshal(data, &frame) != nil || len(frame) < 2 {
		return c.send(ctx, "NOTICE", "invalid: bad negentropy message")
	}
	var label, id, msg string
	_ = json.Unmarshal(frame[0], &label)
	_ = json.Unmarshal(frame[1], &id)
	mode := c.r.currentMode()
	switch label {
	case "NEG-CLOSE":
		delete(c.negs, id)
		return nil
	case "NEG-OPEN":
		var f nostr.Filter
		if len(frame) != 4 || json.Unmarshal(frame[2], &f) != nil || json.Unmarshal(frame[3], &msg) != nil {
			return c.negErr(ctx, mode, id, "invalid: NEG-OPEN")
		}
		if mode.NegRefusal != "" {
			c.r.negAnswers.Add(1)
			return c.refuseNeg(ctx, mode, id)
		}
		if _, reused := c.negs[id]; mode.MaxNegSessions > 0 && !reused && len(c.negs) >= mode.MaxNegSessions {
			c.r.refusedNegs.Add(1)
			return c.send(ctx, "NOTICE", "ERROR: too many concurrent NEG requests")
		}
		f.Limit = 0
		matched := c.r.query(f, 0)
		if mode.NegMaxItems > 0 && len(matched) > mode.NegMaxItems {
			c.r.negAnswers.Add(1)
			return c.negErr(ctx, mode, id, "blocked: this query is too big")
		}
		vec := vector.New()
		for _, s := range matched {
			vec.Insert(s.ev.CreatedAt, s.ev.ID)
		}
		vec.Seal()
		c.negs[id] = negentropy.New(vec, 1<<20)
	case "NEG-MSG":
		if len(frame) != 3 || json.Unmarshal(frame[2], &msg) != nil || c.negs[id] == nil {
			return c.negErr(ctx, mode, id, "closed: no such reconciliation")
		}
	default:
		return c.send(ctx, "NOTICE", "unknown message type "+label)
	}
	if n := c.r.negAnswers.Add(1); mode.NegStallAfter > 0 && n > int64(mode.NegStallAfter) {
		return nil
	}
	out, err := c.negs[id].Reconcile(msg)
	if err != nil {
		delete(c.negs, id)
		return c.negErr(ctx, mode, id, "invalid: "+err.Error())
	}
	return c.send(ctx, "NEG-MSG", id, out)
}

func (c *conn) refuseNeg(ctx context.Context, mode Mode, id string) error {
	switch mode.NegRefusal {
	case "silent":
		return nil
	case "NOTICE":
		return c.send(ctx, "NOTICE", "ERROR: bad msg: unknown cmd")
	case "NEG-ERR":
		return c.negErr(ctx, mode, id, "blocked: NIP-77 is turned off")
	default:
		return c.send(ctx, mode.NegRefusal, id, mode.ErrorPrefix+"blocked: NIP-77 is turned off")
	}
}

// negErr refuses a reconciliation, in the mode's form.
func (c *conn) negErr(ctx context.Context, mode Mode, id, reason string) error {
	if mode.NegErrExtra {
		return c.send(ctx, "NEG-ERR", id, mode.ErrorPrefix+reason, 50)
	}
	return c.send(ctx, "NEG-ERR", id, mode.ErrorPrefix+reason)
}

// full reports whether a REQ for id would pass the subscription limit (a REQ
// reusing an open id replaces it).
func (c *conn) full(id string, limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, reused := c.subs[id]
	return limit > 0 && !reused && len(c.subs) >= limit
}

// push sends newly published events to matching live subscriptions.
func (c *conn) push(added []*stored) {
	c.mu.Lock()
	subs := make(map[string]nostr.Filters, len(c.subs))
	for id, sub := range c.subs {
		subs[id] = sub.filters
	}
	c.mu.Unlock()
	ctx := context.Background()
	for _, s := range added {
		for id, fs := range subs {
			if fs.Match(s.ev) && c.claim(id, s.ev.ID) {
				if c.sendEvent(ctx, id, s) != nil {
					return
				}
			}
		}
	}
}

// StartForTest starts a relay in mode holding evs, closed when the test ends.
func StartForTest(tb testing.TB, mode Mode, evs ...*nostr.Event) *Relay {
	tb.Helper()
	r, err := Start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(r.Close)
	r.SetMode(mode)
	r.Publish(evs...)
	return r
}
