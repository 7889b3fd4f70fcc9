// Package validation decides whether an event may be kept: id and signature,
// the kind-specific checklists of NIP-32009 / NIP-32014 / NIP-39 (kind 10011),
// and eligibility under the scope profile. Every rejection names its rule.
package validation

// Kinds kept by the trust profile.
const (
	KindTrust  = 32009
	KindRating = 32014
	KindClaims = 10011
)

// IsTrustKind reports whether kind is one of the trust profile's kinds.
func IsTrustKind(kind int) bool {
	return kind == KindTrust || kind == KindRating || kind == KindClaims
}

// Rejection is an event refused by a named rule. Error() is the exact text
// sent in an `OK false` message, e.g. "invalid: d tag does not match material".
type Rejection struct {
	Prefix string // machine-readable NIP-01 prefix: "invalid", "blocked", ...
	Rule   string // human-readable rule that failed
}

func (r *Rejection) Error() string { return r.Prefix + ": " + r.Rule }

// Label is one `l` tag: a label token and its optional, untrusted description.
type Label struct {
	Name        string
	Description string
}

// Statement is a parsed, valid kind 32009 (trust) or 32014 (rating) event.
type Statement struct {
	Kind      int
	ID        string // event id, hex
	Author    string // pubkey, hex
	CreatedAt int64
	D         string

	SubjectTag byte   // 'p', 'e' or 'i'
	Subject    string // hex pubkey, hex event id, or "class:property:value"
	// BoundHints are the hex pubkeys of bare npub1… hints on the subject tag
	// (advisory links of an X account subject to a Nostr pubkey).
	BoundHints []string

	// Value is the 32009 `v` ("1", "0", "-1", "" = delete) or the canonical
	// 32014 score ("0".."100", "" = delete).
	Value   string
	Context string   // `c`, "" = global
	Scopes  []string // unique sorted `s` values
	Labels  []Label
	// ActiveFrom is `x`, 0 when absent (active from 0 is the same thing).
	// ActiveUntil is `y` when Expires: presence, not zero, says there is an
	// end, so `["y","0"]` has expired while no `y` never does.
	ActiveFrom  int64
	ActiveUntil int64
	Expires     bool
	Content     string
}

// Deleted reports a delete tombstone (empty value).
func (s *Statement) Deleted() bool { return s.Value == "" }

// Claims is a parsed kind 10011 event: the X (twitter) identities a pubkey
// claims. An event with no valid twitter claim revokes earlier claims.
type Claims struct {
	ID         string
	Author     string
	CreatedAt  int64
	TwitterIDs []string // decimal ids from `twitter_id:<digits>`
	Handles    []string // lower-cased handles from `twitter:<handle>`
	// Malformed names the rule the twitter tags break; such an event claims
	// nothing but is still its author's latest 10011 (NIP-39).
	Malformed string
}
