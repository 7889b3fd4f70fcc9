package validation

import (
	"fmt"
	"slices"

	"github.com/nbd-wtf/go-nostr"
)

// DefaultScope is the scope profile the product ships with.
const DefaultScope = "x.com"

// Profile is the scope profile that decides which valid statements this
// server keeps (SPEC §2.2).
type Profile struct {
	Scope string
}

// DefaultProfile is the `x.com` profile.
func DefaultProfile() Profile { return Profile{Scope: DefaultScope} }

// Parsed is what the trust rules parsed from an event: its statement (kinds
// 32009, 32014) or its claims (kind 10011). Both are nil for an event they
// did not parse (a repository event).
type Parsed struct {
	Statement *Statement
	Claims    *Claims
}

// Check decides whether an event may be kept, short of signature work
// (VerifyEvent): the kind must be one this server keeps, pass its kind's
// checklist, and — for statements — be eligible under the profile scope.
// It returns what it parsed, so that the heap need not parse the event
// again.
func (p Profile) Check(ev *nostr.Event) (Parsed, error) {
	switch ev.Kind {
	case KindTrust, KindRating:
		st, err := ParseStatement(ev)
		if err == nil {
			err = p.Eligible(st)
		}
		if err != nil {
			return Parsed{}, err
		}
		return Parsed{Statement: st}, nil
	case KindClaims:
		c, err := ParseClaims(ev)
		if err != nil {
			return Parsed{}, err
		}
		return Parsed{Claims: c}, nil
	}
	return Parsed{}, &Rejection{Prefix: "blocked", Rule: fmt.Sprintf("kind %d is not kept by this server", ev.Kind)}
}

// Eligible applies scope eligibility to an already parsed statement, so a
// caller that needs the Statement parses once: 32009 needs no `s` or one
// `s` equal to the profile scope; 32014 needs an `s` equal to it.
func (p Profile) Eligible(st *Statement) error {
	inScope := slices.Contains(st.Scopes, p.Scope)
	if st.Kind == KindTrust && (len(st.Scopes) == 0 || inScope) {
		return nil
	}
	if st.Kind == KindRating && inScope {
		return nil
	}
	if st.Kind == KindRating {
		return &Rejection{Prefix: "blocked", Rule: fmt.Sprintf("kind 32014 needs s=%s", p.Scope)}
	}
	return &Rejection{Prefix: "blocked", Rule: fmt.Sprintf("kind 32009 scope is neither empty nor %s", p.Scope)}
}
