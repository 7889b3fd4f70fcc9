package status

// RepoSync is the repository-sync profile's status (SPEC §8): `repo-sync
// status --json`, the `repoSync` section of `status --json`, and the
// window's Repositories tab.
type RepoSync struct {
	Enabled      bool         `json:"enabled"` // a service URL is set
	Paused       bool         `json:"paused"`  // connections stopped while the disk is full
	Services     []string     `json:"services"`
	Bootstrap    string       `json:"bootstrap"`  // "" = none
	Repos        int          `json:"repos"`      // repositories followed
	RootEvents   int          `json:"rootEvents"` // (repository, root event) pairs followed
	KeptAside    int          `json:"keptAside"`  // events waiting for what they depend on
	Repositories []Repository `json:"repositories"`
	Relays       []RepoRelay  `json:"relays"`
	// The dial policy (SPEC §8): whether local relays announcements name are
	// dialled, the caps, and the relays named but not dialled, counted by
	// reason and listed (the first MaxRefusedListed by URL).
	LocalRelays      bool           `json:"localRelays"`
	MaxRelays        int            `json:"maxRelays"`
	MaxRelaysPerRepo int            `json:"maxRelaysPerRepo"`
	RefusedByReason  map[string]int `json:"refusedByReason"`
	RefusedRelays    []RefusedRelay `json:"refusedRelays"`
}

// MaxRefusedListed bounds the refused relays a status lists: an
// announcement may name thousands; all are counted.
const MaxRefusedListed = 200

// RefusedRelay is a relay repository announcements name that is not
// dialled, and why: "not-wss" (ws://, only wss:// is dialled), the range of
// a local address in its URL ("loopback", "private", "link-local",
// "unique-local", …), "resolves-local" (its name resolved to one when
// dialled), "repo-relay-cap" or "per-repo-cap" (past a cap).
type RefusedRelay struct {
	URL    string `json:"url"`
	Reason string `json:"reason"`
	Repos  int    `json:"repos"` // followed repositories naming it
}

// Repository is one followed repository.
type Repository struct {
	Ref        string   `json:"ref"` // 30617:<owner hex>:<d>
	ID         string   `json:"id"`  // d
	Name       string   `json:"name"`
	Owner      string   `json:"owner"` // hex pubkey
	RootEvents int      `json:"rootEvents"`
	Relays     []string `json:"relays"` // its sync relays
}

// RepoRelay is one sync relay of the repository profile.
type RepoRelay struct {
	URL            string `json:"url"`
	Bootstrap      bool   `json:"bootstrap"`
	Health         string `json:"health"`
	State          string `json:"state"`
	Connected      bool   `json:"connected"`
	Filters        int    `json:"filters"`
	Subscriptions  int    `json:"subscriptions"`
	Repos          int    `json:"repos"`
	EventsReceived int64  `json:"eventsReceived"`
	EventsStored   int64  `json:"eventsStored"` // of those received, new to us when they arrived
	LastError      string `json:"lastError"`
	// CoolingUntil is set (unix seconds) while the relay is left alone after
	// refusing subscriptions ("too many", "rate limit", …) or while its
	// session rests after a failed batch (Relay.CoolingUntil).
	CoolingUntil int64 `json:"coolingUntil,omitempty"`
	Failures     int   `json:"consecutiveFailures"`
	NextRetry    int64 `json:"nextRetry"`
	Refresh            // the last daily catch-up
}
