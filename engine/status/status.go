// Package status holds the engine's status snapshot: the one shape read by
// `status --json`, GET /api/v1/status and the desktop UI. Field names are a
// stable interface (SPEC §12): extend, never rename.
package status

import "dtp-personal/engine/settings"

// Sync states (SPEC §6.5).
const (
	StateIdle         = "idle"
	StateRunning      = "running"
	StateConnecting   = "connecting"
	StateLive         = "live"
	StateReconnecting = "reconnecting"
	StatePartial      = "partial"
	StateComplete     = "complete"
	StateStopped      = "stopped"
	StateError        = "error"
)

// Health states of a relay (SPEC §6.5).
const (
	HealthHealthy = "healthy"
	HealthBackoff = "backoff"
	HealthHourly  = "hourly"
	HealthDead    = "dead"
)

// Snapshot is the whole engine status at one moment.
type Snapshot struct {
	Strategy        string            `json:"strategy"`
	IntervalMinutes int               `json:"intervalMinutes"`
	Paused          bool              `json:"paused"`
	State           string            `json:"state"`
	Coverage        Coverage          `json:"coverage"`
	LastSync        int64             `json:"lastSync"` // unix seconds, 0 = never
	NextSync        int64             `json:"nextSync"` // unix seconds, 0 = not scheduled
	Relays          []Relay           `json:"relays"`
	Frontier        Frontier          `json:"frontier"`
	Heap            Heap              `json:"heap"`
	Store           Store             `json:"store"`
	Progress        Progress          `json:"progress"`
	Ingest          Ingest            `json:"ingest"`
	Listen          string            `json:"listen"` // where the server listens now ("" = not serving); may differ from Settings.Listen
	Settings        settings.Settings `json:"settings"`
	// RestartNeeded names the settings changed since the engine started
	// that it takes only at its start ("listen address"); empty when none.
	RestartNeeded []string `json:"restartNeeded,omitempty"`
	RepoSync      RepoSync `json:"repoSync"`
	// Newcomers are the people new to the network between passes (SPEC §7).
	Newcomers Newcomers `json:"newcomers"`
}

// Newcomers: frontier members no relay has given their history yet, and
// how many of them are being fetched now.
type Newcomers struct {
	Fetching      int `json:"fetching"`
	NotYetFetched int `json:"notYetFetched"`
}

// Relay is one sync relay's health and progress.
type Relay struct {
	URL           string `json:"url"`
	Health        string `json:"health"`
	State         string `json:"state"`
	Connected     bool   `json:"connected"`
	LastSuccess   int64  `json:"lastSuccess"`
	EventsFetched int64  `json:"eventsFetched"`
	EventsStored  int64  `json:"eventsStored"` // of those fetched, new to us when they arrived
	OldestReached int64  `json:"oldestReached"`
	NewestReached int64  `json:"newestReached"`
	Failures      int    `json:"consecutiveFailures"`
	NextRetry     int64  `json:"nextRetry"`
	LastError     string `json:"lastError"`
	// CoolingUntil is set (unix seconds) while the relay is left alone
	// though its health allows it: it refused subscriptions, or a failure on
	// our side (a store error) or a failed batch makes its session rest.
	CoolingUntil int64 `json:"coolingUntil,omitempty"`
	// Progress is this relay's share of the running pass (keys done of the
	// current family's total); nil outside a pass or for a relay not in it.
	Progress *Progress `json:"progress,omitempty"`
	Refresh
}

// Refresh is how a relay's last daily full refresh went (both sync profiles).
type Refresh struct {
	// NIP77 is NIP77Used (reconciled with NIP-77), NIP77Unsupported (the
	// relay refused it: paged) or NIP77Unknown (not tried yet).
	NIP77          string `json:"nip77"`
	IDsReconciled  int64  `json:"idsReconciled"`  // ids the last refresh's reconciliations settled
	ReconcileBytes int64  `json:"reconcileBytes"` // negentropy frames the last refresh received
}

// NIP-77 use of a relay's last full refresh (Relay.NIP77).
const (
	NIP77Used        = "used"
	NIP77Unsupported = "unsupported"
	NIP77Unknown     = "unknown"
)

// Frontier is the sync frontier: whose events are fetched.
type Frontier struct {
	Roots        []string     `json:"roots"`        // hex pubkeys (configured)
	SessionRoots []string     `json:"sessionRoots"` // hex pubkeys (live client sessions)
	Size         int          `json:"size"`
	ByDepth      []int        `json:"byDepth"`
	Truncation   []Truncation `json:"truncation"`
}

// Truncation is one cap that cut the frontier walk, with how much it cut.
type Truncation struct {
	Reason string `json:"reason"`
	Cut    int    `json:"cut"`
}

// Heap is the in-memory trust graph's size and limits.
type Heap struct {
	Nodes        int    `json:"nodes"`
	Edges        int    `json:"edges"`
	GraphVersion uint64 `json:"graphVersion"`
	NodeLimit    int    `json:"nodeLimit"`
	EdgeLimit    int    `json:"edgeLimit"`
	LimitReason  string `json:"limitReason,omitempty"` // ReasonHeapNodeLimit | ReasonHeapEdgeLimit
}

// Store is the database's size on disk: the file, which grows with the
// data, and its write-ahead log, which stays under its bound (SPEC §9).
type Store struct {
	DatabaseBytes int64 `json:"databaseBytes"`
	WALBytes      int64 `json:"walBytes"`
	WALPeakBytes  int64 `json:"walPeakBytes"` // the largest since the engine opened
	WALLimitBytes int64 `json:"walLimitBytes"`
	// WALResets counts the times the writer started the log over at half
	// its bound; WALResetsBlocked those that readers still in the log held
	// up (each tried again half a second later).
	WALResets        int64 `json:"walResets"`
	WALResetsBlocked int64 `json:"walResetsBlocked"`
}

// Progress is the running sync pass: Done of Total keys (authors, X
// accounts) of its current family; the pass's events so far, their rate
// since it began, and an estimate of the time left.
type Progress struct {
	Pass  string `json:"pass"` // trust | ratings | discovery | claims
	Done  int    `json:"done"`
	Total int    `json:"total"`
	// Events are those the pass received and handed to ingest (new to it:
	// not what NIP-77 found already held); EventsPerSecond is their rate.
	Events          int64   `json:"events"`
	EventsPerSecond float64 `json:"eventsPerSecond"`
	// SecondsLeft is the time left at the pass's pace so far, over the keys
	// it knows it will still ask for (a trust walk finds more as it goes);
	// 0 while it cannot tell.
	SecondsLeft int64 `json:"secondsLeft,omitempty"`
	// Stored is how many of Events the running pass stored so far (new to
	// us): the sum of its share of each relay's stored count, so neither
	// pushes, repository sync nor live subscriptions meanwhile. The
	// snapshot's own progress only; absent for a relay's share.
	Stored int64 `json:"stored,omitempty"`
}

// Ingest counts what the pipeline did.
type Ingest struct {
	Accepted         int64       `json:"accepted"`
	Duplicates       int64       `json:"duplicates"`
	Rejected         int64       `json:"rejected"`
	AcceptedPerSec   float64     `json:"acceptedPerSecond"`
	RecentRejections []Rejection `json:"recentRejections"`
}

// Rejection is one recently refused event and the rule that refused it.
type Rejection struct {
	At      int64  `json:"at"`
	EventID string `json:"eventId"`
	Source  string `json:"source"`
	Reason  string `json:"reason"`
}
