package settings

import (
	"fmt"
	"math"
)

// Limits are the frontier caps, heap guardrails (SPEC §4, §5), the sync's
// page timeout and the server's connection caps (SPEC §9).
type Limits struct {
	MaxDepth           int `json:"maxDepth"`
	MaxAuthorsPerLevel int `json:"maxAuthorsPerLevel"`
	MaxTotalAuthors    int `json:"maxTotalAuthors"`
	MaxEvents          int `json:"maxEvents"`
	MaxRatingEvents    int `json:"maxRatingEvents"`
	MaxDiscoveryEvents int `json:"maxDiscoveryEvents"`
	HeapNodeLimit      int `json:"heapNodeLimit"`
	HeapEdgeLimit      int `json:"heapEdgeLimit"`
	// PageTimeoutSeconds is the longest wait for one page of history; a
	// timed-out page is asked again before the relay counts as failed.
	PageTimeoutSeconds int `json:"pageTimeoutSeconds"`
	// MaxConnections caps the server's open WebSocket connections, in total
	// and from one remote address; the upgrade past a cap is refused.
	MaxConnections           int `json:"maxConnections"`
	MaxConnectionsPerAddress int `json:"maxConnectionsPerAddress"`
}

// DefaultLimits are SPEC §4/§5 defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxDepth: 4, MaxAuthorsPerLevel: 2000, MaxTotalAuthors: 20000,
		MaxEvents: 400000, MaxRatingEvents: 400000, MaxDiscoveryEvents: 40000,
		HeapNodeLimit: 1000000, HeapEdgeLimit: 5000000, PageTimeoutSeconds: 30,
		MaxConnections: 256, MaxConnectionsPerAddress: 64,
	}
}

// MaxDepthHardCap is the deepest frontier walk allowed (SPEC §5).
const MaxDepthHardCap = 5

// LimitField is one limit as every surface names it: the CLI flag, the JSON
// key (also the CLI's plain output), the UI label, and its bounds.
type LimitField struct {
	Flag  string
	JSON  string
	Label string
	Max   int // the minimum is 1 for every limit
	Of    func(*Limits) *int
}

// LimitFields are all limits in display order. This one table drives the
// `limits` command's flags and output, the Settings form and validation.
var LimitFields = []LimitField{
	{"max-depth", "maxDepth", "Max depth", MaxDepthHardCap, func(l *Limits) *int { return &l.MaxDepth }},
	{"max-authors-per-level", "maxAuthorsPerLevel", "Max authors per level", math.MaxInt32, func(l *Limits) *int { return &l.MaxAuthorsPerLevel }},
	{"max-total-authors", "maxTotalAuthors", "Max total authors", math.MaxInt32, func(l *Limits) *int { return &l.MaxTotalAuthors }},
	{"max-events", "maxEvents", "Max trust events per pass", math.MaxInt32, func(l *Limits) *int { return &l.MaxEvents }},
	{"max-rating-events", "maxRatingEvents", "Max rating events", math.MaxInt32, func(l *Limits) *int { return &l.MaxRatingEvents }},
	{"max-discovery-events", "maxDiscoveryEvents", "Max discovery events", math.MaxInt32, func(l *Limits) *int { return &l.MaxDiscoveryEvents }},
	{"heap-node-limit", "heapNodeLimit", "Heap node limit", math.MaxInt32, func(l *Limits) *int { return &l.HeapNodeLimit }},
	{"heap-edge-limit", "heapEdgeLimit", "Heap edge limit", math.MaxInt32, func(l *Limits) *int { return &l.HeapEdgeLimit }},
	{"page-timeout", "pageTimeoutSeconds", "Page timeout (seconds)", 600, func(l *Limits) *int { return &l.PageTimeoutSeconds }},
	{"max-connections", "maxConnections", "Max open connections", math.MaxInt32, func(l *Limits) *int { return &l.MaxConnections }},
	{"max-connections-per-address", "maxConnectionsPerAddress", "Max connections per address", math.MaxInt32, func(l *Limits) *int { return &l.MaxConnectionsPerAddress }},
}

// Check reports whether v is within f's bounds.
func (f LimitField) Check(v int) error {
	if v < 1 || v > f.Max {
		return fmt.Errorf("%s must be from 1 to %d, not %d", f.JSON, f.Max, v)
	}
	return nil
}

// Validate checks every limit against its bounds.
func (l Limits) Validate() error {
	for _, f := range LimitFields {
		if err := f.Check(*f.Of(&l)); err != nil {
			return err
		}
	}
	return nil
}
