package settings

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Limits are the frontier caps, heap guardrails (SPEC §4, §5), the sync's
// page timeout, the resolver's follow band (SPEC §7) and the server's
// connection, queue and tag caps (SPEC §9).
type Limits struct {
	// MaxDepth is the extension's max degree N: the frontier fetches authors
	// at depths 0..N and answers take evidence from depths 0..N-1.
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
	// FollowThreshold is the percentage round(100 × trust ÷ (trust +
	// distrust)) at or above which an author is followed by the resolver's
	// walk and a subject is trusted (the extension's green knob).
	FollowThreshold int `json:"followThreshold"`
	// Red is the percentage below which a subject is distrusted; between
	// Red and FollowThreshold it is mixed. Never above FollowThreshold.
	Red int `json:"red"`
	// MaxConnections caps the server's open WebSocket connections, in total
	// and from one remote address; the upgrade past a cap is refused.
	MaxConnections           int `json:"maxConnections"`
	MaxConnectionsPerAddress int `json:"maxConnectionsPerAddress"`
	// MaxQueuedMiB bounds what waits to be sent to one client: a REQ's
	// answer waits for room, a live event that finds none drops the client.
	MaxQueuedMiB int `json:"maxQueuedMiB"`
	// MaxTotalQueuedMiB bounds what waits to be sent to all clients
	// together; past it the clients stalled longest are dropped.
	MaxTotalQueuedMiB int `json:"maxTotalQueuedMiB"`
	// MaxTagKiB caps the bytes of all of an event's tag elements together,
	// pushed or synced (an unknown tag may not carry what content may not).
	MaxTagKiB int `json:"maxTagKiB"`
	// MaxWALMiB bounds SQLite's write-ahead log on disk: the writer starts
	// it over whenever it passes half of this (SPEC §9, store.SetWALLimit).
	MaxWALMiB int `json:"maxWALMiB"`
	// MaxSubscriptions, MaxFiltersPerReq and MaxMessageKiB bound what one
	// client connection may ask of the server (NIP-11 limitation
	// max_subscriptions, max_filters, max_message_length): the defaults serve
	// a GRASP-02 peer, which opens one subscription per filter group, up to
	// about 70.
	MaxSubscriptions int `json:"maxSubscriptions"`
	MaxFiltersPerReq int `json:"maxFiltersPerReq"`
	MaxMessageKiB    int `json:"maxMessageKiB"`
	// MaxRepoRelays caps the relays repository sync connects to, and
	// MaxRelaysPerRepo the relays taken from one repository's announcement
	// (written by anyone): the relays most repositories share are kept.
	MaxRepoRelays    int `json:"maxRepoRelays"`
	MaxRelaysPerRepo int `json:"maxRelaysPerRepo"`
}

// DefaultLimits are SPEC §4/§5 defaults.
func DefaultLimits() Limits {
	return Limits{
		MaxDepth: 4, MaxAuthorsPerLevel: 2000, MaxTotalAuthors: 20000,
		MaxEvents: 400000, MaxRatingEvents: 400000, MaxDiscoveryEvents: 40000,
		HeapNodeLimit: 1000000, HeapEdgeLimit: 5000000, PageTimeoutSeconds: 30,
		FollowThreshold: DefaultFollowThreshold, Red: DefaultRed,
		MaxConnections: 256, MaxConnectionsPerAddress: 64,
		MaxQueuedMiB: 4, MaxTotalQueuedMiB: 64, MaxTagKiB: 64,
		MaxWALMiB:        64,
		MaxSubscriptions: 100, MaxFiltersPerReq: 100, MaxMessageKiB: 512,
		MaxRepoRelays: 200, MaxRelaysPerRepo: 10,
	}
}

// MaxDepthHardCap is the deepest frontier walk allowed (SPEC §5), and the
// largest max degree a query may ask for (the extension's hard cap).
const MaxDepthHardCap = 5

// The follow band's defaults, as the extension's (percentages, step 1).
const (
	DefaultFollowThreshold = 75
	DefaultRed             = 25
)

// LimitField is one limit as every surface names it: the CLI flag, the JSON
// key (also the CLI's plain output), the UI label, and its bounds.
type LimitField struct {
	Flag  string
	JSON  string
	Label string
	Help  string // one line with its unit, shown under the window's field and by `limits --help`
	Min   int
	Max   int
	Of    func(*Limits) *int
}

// LimitFields are all limits in display order. This one table drives the
// `limits` command's flags and output, the Settings form and validation.
var LimitFields = []LimitField{
	{"max-depth", "maxDepth", "Max degree", "hops from you that are followed (1 = only the people you trust)", 1, MaxDepthHardCap, func(l *Limits) *int { return &l.MaxDepth }},
	{"follow-threshold", "followThreshold", "Follow threshold (%)", "% of trust at which a person's word counts and an answer is trusted (the extension's 75)", 0, 100, func(l *Limits) *int { return &l.FollowThreshold }},
	{"red", "red", "Distrusted below (%)", "% of trust below which an answer is distrusted; between the two it is mixed (25)", 0, 100, func(l *Limits) *int { return &l.Red }},
	{"max-authors-per-level", "maxAuthorsPerLevel", "Max authors per level", "people followed at each hop, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxAuthorsPerLevel }},
	{"max-total-authors", "maxTotalAuthors", "Max total authors", "people followed in all, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxTotalAuthors }},
	{"max-events", "maxEvents", "Max trust events per pass", "trust statements fetched per pass, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxEvents }},
	{"max-rating-events", "maxRatingEvents", "Max rating events", "ratings fetched per pass, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxRatingEvents }},
	{"max-discovery-events", "maxDiscoveryEvents", "Max discovery events", "statements fetched per pass to find who owns an X account, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxDiscoveryEvents }},
	{"heap-node-limit", "heapNodeLimit", "Heap node limit", "people and subjects kept in memory, at most (about 100 bytes each)", 1, math.MaxInt32, func(l *Limits) *int { return &l.HeapNodeLimit }},
	{"heap-edge-limit", "heapEdgeLimit", "Heap edge limit", "statements kept in memory, at most (about 40 bytes each)", 1, math.MaxInt32, func(l *Limits) *int { return &l.HeapEdgeLimit }},
	{"page-timeout", "pageTimeoutSeconds", "Page timeout (seconds)", "seconds to wait for one page of history from a relay", 1, 600, func(l *Limits) *int { return &l.PageTimeoutSeconds }},
	{"max-connections", "maxConnections", "Max open connections", "clients connected to this server at once, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxConnections }},
	{"max-connections-per-address", "maxConnectionsPerAddress", "Max connections per address", "clients connected from one address at once, at most", 1, math.MaxInt32, func(l *Limits) *int { return &l.MaxConnectionsPerAddress }},
	{"max-queued-mib", "maxQueuedMiB", "Queue per client (MiB)", "MiB waiting to be sent to one client; a client that stops reading is dropped", 1, 1024, func(l *Limits) *int { return &l.MaxQueuedMiB }},
	{"max-total-queued-mib", "maxTotalQueuedMiB", "Queue for all clients (MiB)", "MiB waiting to be sent to all clients; past it the slowest are dropped", 1, 64 << 10, func(l *Limits) *int { return &l.MaxTotalQueuedMiB }},
	{"max-tag-kib", "maxTagKiB", "Max tags per event (KiB)", "KiB of tags one event may carry; a larger one is refused", 1, 1024, func(l *Limits) *int { return &l.MaxTagKiB }},
	// at least 32: half of it must hold the largest batch's log (about 10 MiB)
	{"max-wal-mib", "maxWALMiB", "Write-ahead log on disk (MiB)", "MiB of the database's write-ahead log on disk, at most (the database file is what grows with your data)", 32, 64 << 10, func(l *Limits) *int { return &l.MaxWALMiB }},
	{"max-subscriptions", "maxSubscriptions", "Subscriptions per client", "subscriptions one client may keep open (a GRASP-02 peer opens about 70)", 1, 10000, func(l *Limits) *int { return &l.MaxSubscriptions }},
	{"max-filters-per-req", "maxFiltersPerReq", "Filters per request", "filters one request may carry", 1, 1000, func(l *Limits) *int { return &l.MaxFiltersPerReq }},
	{"max-message-kib", "maxMessageKiB", "Message size (KiB)", "KiB one message from a client may take", 16, 16 << 10, func(l *Limits) *int { return &l.MaxMessageKiB }},
	{"max-repo-relays", "maxRepoRelays", "Repository relays", "relays repository sync connects to, at most (those most repositories share are kept)", 1, 10000, func(l *Limits) *int { return &l.MaxRepoRelays }},
	{"max-relays-per-repo", "maxRelaysPerRepo", "Relays per repository", "relays taken from one repository's announcement, at most", 1, 1000, func(l *Limits) *int { return &l.MaxRelaysPerRepo }},
}

// Check reports whether v is within f's bounds.
func (f LimitField) Check(v int) error {
	if v < f.Min || v > f.Max {
		return fmt.Errorf("%s must be from %d to %d, not %d", f.JSON, f.Min, f.Max, v)
	}
	return nil
}

// Validate checks every limit against its bounds, that the red band ends
// at or below the follow threshold (they may meet: no mixed band), and that
// all clients together may queue at least what one may.
func (l Limits) Validate() error {
	for _, f := range LimitFields {
		if err := f.Check(*f.Of(&l)); err != nil {
			return err
		}
	}
	if l.Red > l.FollowThreshold {
		return fmt.Errorf("red must not be above followThreshold (%d > %d)", l.Red, l.FollowThreshold)
	}
	if l.MaxTotalQueuedMiB < l.MaxQueuedMiB {
		return fmt.Errorf("maxTotalQueuedMiB must not be below maxQueuedMiB (%d < %d)", l.MaxTotalQueuedMiB, l.MaxQueuedMiB)
	}
	return nil
}

// LimitPreset is a set of caps for the size of network followed: the window
// offers them as buttons, the CLI as `limits --preset NAME`.
type LimitPreset struct {
	Name  string // the CLI's name: small, normal, large
	Label string // the window's button
	Help  string
	// depth is the max degree it sets (0: the default); factor scales the
	// default people, events and memory caps.
	depth  int
	factor float64
}

// LimitPresets: Normal is the defaults; Small and Large scale the people,
// events and memory caps by 4 each way (and the depth by one). Other limits
// (the follow band, the connection and queue caps) are not the preset's.
var LimitPresets = []LimitPreset{
	{"small", "Small network", "max degree 3, a quarter of the default people, events and memory caps", 3, 0.25},
	{"normal", "Normal network", "the default max degree, people, events and memory caps", 0, 1},
	{"large", "Large network", fmt.Sprintf("max degree %d, four times the default people, events and memory caps", MaxDepthHardCap), MaxDepthHardCap, 4},
}

// presetCaps are the caps a preset scales.
var presetCaps = []string{"maxAuthorsPerLevel", "maxTotalAuthors", "maxEvents", "maxRatingEvents",
	"maxDiscoveryEvents", "heapNodeLimit", "heapEdgeLimit"}

// Sets reports whether the preset sets the field (the max degree and the
// scaled caps); the other fields keep what they hold.
func (p LimitPreset) Sets(f LimitField) bool {
	return f.JSON == "maxDepth" || slices.Contains(presetCaps, f.JSON)
}

// Apply sets the fields the preset sets in l.
func (p LimitPreset) Apply(l *Limits) {
	def := DefaultLimits()
	for _, f := range LimitFields {
		if !p.Sets(f) {
			continue
		}
		v := *f.Of(&def)
		switch {
		case f.JSON == "maxDepth" && p.depth > 0:
			v = p.depth
		case f.JSON != "maxDepth":
			v = min(f.Max, int(float64(v)*p.factor))
		}
		*f.Of(l) = v
	}
}

// LimitPresetNamed is the preset of that name, or an error naming them all.
func LimitPresetNamed(name string) (LimitPreset, error) {
	for _, p := range LimitPresets {
		if p.Name == name {
			return p, nil
		}
	}
	return LimitPreset{}, fmt.Errorf("no limits preset %q (%s)", name, LimitPresetNames())
}

// LimitPresetNames are the presets' names, "small, normal, large".
func LimitPresetNames() string {
	names := make([]string, len(LimitPresets))
	for i, p := range LimitPresets {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}
