// Package server is the one listener of SPEC §9: a NIP-01 relay over
// WebSocket on "/", the NIP-11 document, the resolver over WebSocket and
// HTTP, /api/v1/status and /metrics. It holds no business logic: events go to
// the ingest pipeline, queries to the store, trust questions to the resolver.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/metrics"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// Ingester takes pushed events; done runs after the commit (see ingest).
type Ingester interface {
	Submit(ctx context.Context, ev *nostr.Event, source string, done func(ingest.Result)) error
}

// EventReader answers REQ and COUNT.
type EventReader interface {
	// QueryEach calls fn for each event a REQ filter answers, newest first,
	// at most max, holding no database resources while fn runs.
	QueryEach(ctx context.Context, f nostr.Filter, max int, fn func(*nostr.Event) error) error
	// Count counts the events any of filters matches, each once (NIP-45).
	Count(ctx context.Context, filters ...nostr.Filter) (int64, error)
	// Stamps are the (created_at, id) pairs NIP-77 reconciles.
	Stamps(ctx context.Context, f nostr.Filter, max int) ([]store.Stamp, error)
}

// ResolveQuery is a trust question as clients send it: about one subject,
// or a batch about several (Subjects), answered in order from one walk.
type ResolveQuery struct {
	Subject  string   `json:"subject"`
	Subjects []string `json:"subjects,omitempty"`
	Context  string   `json:"context,omitempty"`
	Scope    string   `json:"scope,omitempty"`
	Roots    []string `json:"roots,omitempty"`
	// The extension's knobs for this query (nil: the user's settings).
	MaxDegree       *int `json:"maxDegree,omitempty"`
	FollowThreshold *int `json:"followThreshold,omitempty"`
	Red             *int `json:"red,omitempty"`
}

// Resolver answers trust questions; the answers are marshalled as JSON.
type Resolver interface {
	Resolve(ctx context.Context, q ResolveQuery) (any, error)
	// ResolveBatch answers q about each of q.Subjects, in order.
	ResolveBatch(ctx context.Context, q ResolveQuery) (any, error)
	// Trusted pages the people q's walk follows (its subject is unused).
	Trusted(ctx context.Context, q ResolveQuery, offset, limit int) (any, error)
	// GraphStats are the graph's figures.
	GraphStats(ctx context.Context) (any, error)
}

// Sessions tracks roots registered by live client sessions (SPEC §7).
type Sessions interface {
	SetSessionRoots(session string, roots []string) error
	DropSession(session string)
}

// StatusSource gives the status document of GET /api/v1/status.
type StatusSource interface {
	StatusDocument() any
}

// Limits bound what one connection may do (SPEC §9).
type Limits struct {
	MaxMessageBytes    int     // frames larger than this are refused with a reason
	MaxFrameBytes      int64   // frames larger than this close the connection
	MaxSubscriptions   int     // open REQs per connection
	MaxFilters         int     // filters per REQ
	MaxLimit           int     // results per query
	EventsPerSecond    float64 // pushes per connection, sustained
	EventsBurst        int     // pushes per connection, burst
	MaxInflightEvents  int     // pushed events awaiting OK per connection
	MaxNegSessions     int     // open NIP-77 reconciliations per connection; 0 turns NIP-77 off
	MaxNegItems        int     // events one NIP-77 reconciliation may cover
	MaxResolveSubjects int     // subjects in one batch question (RESOLVE, POST /api/v1/resolve)
	MaxTagBytes        int     // bytes of all of an event's tag elements together (checked by the engine's arrival rules)
	// HTTPIdleTimeout closes a keep-alive HTTP connection idle this long
	HTTPIdleTimeout time.Duration
	// Memory (SPEC §9: bounded in bytes, per connection and in total)
	MaxQueuedBytes      int   // outgoing bytes queued for one connection; a REQ's answer waits for room
	MaxTotalQueuedBytes int64 // for all connections together; past it the most stalled are dropped (0: no cap)
}

// DefaultLimits are the limits a personal server ships with: enough
// subscriptions, filters and message size for a GRASP-02 peer, which opens
// one subscription per filter group, up to about 70 (the user's settings
// change the three, settings.Limits).
func DefaultLimits() Limits {
	return Limits{
		MaxMessageBytes: 512 << 10, MaxFrameBytes: 1 << 20,
		MaxSubscriptions: 100, MaxFilters: 100, MaxLimit: 5000,
		EventsPerSecond: 2000, EventsBurst: 20000, MaxInflightEvents: 1024,
		MaxNegSessions: 4, MaxNegItems: 500_000, MaxResolveSubjects: 100,
		MaxTagBytes: 64 << 10, HTTPIdleTimeout: 60 * time.Second,
		MaxQueuedBytes: 4 << 20, MaxTotalQueuedBytes: 64 << 20,
	}
}

// Config wires a Server.
type Config struct {
	Ingest   Ingester
	Events   EventReader
	Resolver Resolver
	Sessions Sessions
	Status   StatusSource
	Metrics  *metrics.Registry
	// Limits are the limits at start; SetLimits changes them.
	Limits Limits
	// SyncNow asks for a sync pass (POST /api/v1/sync); nil = not offered.
	SyncNow func() error
	// Maintenance serves the owner's prune, delete and compact; nil = not
	// offered.
	Maintenance Maintenance
	// Access gives the access rules at each request (settings the user can
	// change while the server runs); nil = loopback and no web pages.
	Access func() Access
	Info   Info
	// Connections gives the caps on open WebSocket connections, in total
	// and per remote address, at each upgrade (settings the user can change
	// while the server runs); nil or 0 = no cap.
	Connections func() (total, perAddress int)
	// OwnerToken, when set, marks the WebSocket connections whose upgrade
	// carries "Authorization: Bearer <OwnerToken>": the data directory's
	// owner (the CLI reads it from a file only they can read), whose pushes
	// are not rate-limited. Browsers cannot set that header on a WebSocket.
	OwnerToken string
}

// Info is what the NIP-11 document says about this server.
type Info struct {
	Name, Description, Software, Version string
}

// Server is the HTTP + WebSocket handler. Broadcast must be wired to the
// ingest pipeline's commits for live subscriptions to work.
type Server struct {
	cfg     Config
	limits  atomic.Pointer[Limits] // in force: read at each use (SetLimits)
	mu      sync.Mutex
	conns   map[*conn]struct{}
	perIP   map[string]int // open WebSocket connections by remote address
	nextID  uint64
	refused metrics.Counter

	queued   atomic.Int64 // bytes in every connection's outgoing queue
	shedding sync.Mutex   // one shed at a time
}

// New builds a Server.
func New(cfg Config) *Server {
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits()
	}
	if cfg.Access == nil {
		cfg.Access = func() Access { return Access{} }
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	s := &Server{
		cfg:     cfg,
		conns:   make(map[*conn]struct{}),
		perIP:   make(map[string]int),
		refused: cfg.Metrics.NewCounter("dtp_server_refused_total", "Requests refused by access rules or limits.", "rule"),
	}
	s.limits.Store(&cfg.Limits)
	return s
}

// Limits are the limits in force.
func (s *Server) Limits() Limits { return *s.limits.Load() }

// SetLimits changes the limits while the server runs. Each is read where it
// applies: the queue budgets at the next frame queued (open connections
// too), the NIP-11 document at the next request, the per-connection frame,
// push and subscription limits when a connection opens or at its next
// message. HTTPIdleTimeout is the listener's and stays as it started.
func (s *Server) SetLimits(l Limits) { s.limits.Store(&l) }

// Broadcast delivers committed events to matching live subscriptions.
func (s *Server) Broadcast(evs []*nostr.Event) {
	for _, c := range s.connections() {
		c.deliver(evs)
	}
}

// connections is a snapshot of the open connections.
func (s *Server) connections() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	return conns
}

// ServeHTTP routes every request of the listener.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := s.cfg.Access()
	if !peerAllowed(r.RemoteAddr, a.AllowLAN) {
		s.refused.Inc("peer-not-local")
		http.Error(w, "forbidden: this server accepts loopback and local-network peers only", http.StatusForbidden)
		return
	}
	if !s.checkAccess(w, r, a) {
		return
	}
	switch r.URL.Path {
	case "/":
		s.serveRoot(w, r)
	case "/api/v1/status":
		writeJSON(w, http.StatusOK, s.cfg.Status.StatusDocument())
	case "/api/v1/resolve":
		s.serveResolve(w, r)
	case "/api/v1/trusted":
		s.serveTrusted(w, r)
	case "/api/v1/graph/stats":
		s.serveGraphStats(w, r)
	case "/api/v1/sync":
		s.serveSync(w, r)
	case "/api/v1/prune":
		s.serveMaintenance(w, r, "prune")
	case "/api/v1/delete":
		s.serveMaintenance(w, r, "delete")
	case "/api/v1/compact":
		s.serveMaintenance(w, r, "db compact")
	case "/metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_ = s.cfg.Metrics.WriteText(w)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) serveRoot(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "" {
		s.serveWebSocket(w, r)
		return
	}
	if r.Header.Get("Accept") == "application/nostr+json" {
		w.Header().Set("Content-Type", "application/nostr+json")
		_ = json.NewEncoder(w).Encode(s.nip11())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(s.cfg.Info.Name + ": a personal Nostr web-of-trust server. Connect with a Nostr client over WebSocket.\n"))
}

func (s *Server) nip11() map[string]any {
	l := s.Limits()
	nips := []int{1, 11, 40, 45}
	if l.MaxNegSessions > 0 {
		nips = append(nips, 77)
	}
	return map[string]any{
		"name":           s.cfg.Info.Name,
		"description":    s.cfg.Info.Description,
		"software":       s.cfg.Info.Software,
		"version":        s.cfg.Info.Version,
		"supported_nips": nips,
		"limitation": map[string]any{
			"max_message_length":     l.MaxMessageBytes,
			"max_subscriptions":      l.MaxSubscriptions,
			"max_filters":            l.MaxFilters,
			"max_limit":              l.MaxLimit,
			"max_subid_length":       maxSubIDLength,
			"created_at_upper_limit": int(validation.MaxFutureSkew / time.Second),
			"max_resolve_subjects":   l.MaxResolveSubjects,
			"auth_required":          false,
			"payment_required":       false,
			"restricted_writes":      true,
		},
	}
}

// serveSync starts a sync pass for `dtp-personal sync --once` against a
// running server. Only POST; ServeHTTP already refused foreign web pages.
func (s *Server) serveSync(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
	case s.cfg.SyncNow == nil:
		http.Error(w, "sync is not available", http.StatusNotFound)
	default:
		if err := s.cfg.SyncNow(); err != nil {
			writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "sync requested"})
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// admit takes a connection slot for the remote address ip within the
// connection caps, or returns the refusal.
func (s *Server) admit(ip string) string {
	var total, perAddress int
	if s.cfg.Connections != nil {
		total, perAddress = s.cfg.Connections()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	open := 0
	for _, n := range s.perIP {
		open += n
	}
	switch {
	case total > 0 && open >= total:
		return fmt.Sprintf("too many connections: %d are open, the limit of this server", open)
	case perAddress > 0 && s.perIP[ip] >= perAddress:
		return fmt.Sprintf("too many connections: %d are open from %s, the limit per address", s.perIP[ip], ip)
	}
	s.perIP[ip]++
	return ""
}

// leave gives back a slot admit took.
func (s *Server) leave(ip string) {
	s.mu.Lock()
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip)
	}
	s.mu.Unlock()
}

func (s *Server) register(c *conn) {
	s.mu.Lock()
	s.conns[c] = struct{}{}
	s.mu.Unlock()
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	if s.cfg.Sessions != nil {
		s.cfg.Sessions.DropSession(c.id)
	}
}

// shed drops the connections whose queues have stalled longest while the
// bytes queued for all exceed MaxTotalQueuedBytes: a client that stopped
// reading loses its connection before it takes memory from the others.
func (s *Server) shed() {
	budget := s.Limits().MaxTotalQueuedBytes
	if budget <= 0 || s.queued.Load() <= budget {
		return
	}
	s.shedding.Lock()
	defer s.shedding.Unlock()
	for s.queued.Load() > budget {
		var victim *conn
		var since time.Time
		for _, c := range s.connections() {
			if n, t := c.out.stalled(); n > 0 && (victim == nil || t.Before(since)) {
				victim, since = c, t
			}
		}
		if victim == nil {
			return
		}
		victim.dropTooSlow() // its queue's bytes leave the total at once
	}
}

// CloseAll closes every WebSocket connection (on shutdown).
func (s *Server) CloseAll() {
	for _, c := range s.connections() {
		c.cancel()
	}
}
