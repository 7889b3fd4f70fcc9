package validation

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/nbd-wtf/go-nostr"
)

// tagSlot counts one single-valued tag name and remembers its first use.
type tagSlot struct {
	name  string
	count int
	tag   nostr.Tag
}

func (s *tagSlot) add(tag nostr.Tag) {
	if s.count == 0 {
		s.tag = tag
	}
	s.count++
}

func (s *tagSlot) value() string {
	if len(s.tag) < 2 {
		return ""
	}
	return s.tag[1]
}

// statementTags is one pass over an event's tags, grouped by meaning.
type statementTags struct {
	d, subject, value, k, c, x, y tagSlot
	scopes                        []nostr.Tag
	labels                        []nostr.Tag
}

func collectStatementTags(ev *nostr.Event) *statementTags {
	t := &statementTags{
		d: tagSlot{name: "d"}, subject: tagSlot{name: "subject (p, e or i)"},
		k: tagSlot{name: "k"}, c: tagSlot{name: "c"}, x: tagSlot{name: "x"}, y: tagSlot{name: "y"},
	}
	// 32014 has no `v` (a stray one is ignored); 32009 has no `score`.
	t.value.name = "v"
	if ev.Kind == KindRating {
		t.value.name = "score"
	}
	for _, tag := range ev.Tags {
		if len(tag) == 0 {
			continue
		}
		switch tag[0] {
		case "d":
			t.d.add(tag)
		case "p", "e", "i":
			t.subject.add(tag)
		case t.value.name:
			t.value.add(tag)
		case "k":
			t.k.add(tag)
		case "c":
			t.c.add(tag)
		case "x":
			t.x.add(tag)
		case "y":
			t.y.add(tag)
		case "s":
			t.scopes = append(t.scopes, tag)
		case "l":
			t.labels = append(t.labels, tag)
		}
	}
	return t
}

// ParseStatement applies the NIP-32009 / NIP-32014 validation checklist to a
// kind 32009 or 32014 event (everything except the signature, which is
// VerifyEvent's job) and returns the parsed statement. The first failing
// rule is returned as a *Rejection with Prefix "invalid".
func ParseStatement(ev *nostr.Event) (*Statement, error) {
	if ev.Kind != KindTrust && ev.Kind != KindRating {
		return nil, invalid(fmt.Sprintf("kind %d is not a statement kind (32009 or 32014)", ev.Kind))
	}
	t := collectStatementTags(ev)

	if err := checkCreatedAt(ev); err != nil {
		return nil, err
	}
	if err := t.checkCounts(); err != nil {
		return nil, err
	}
	d := t.d.value()
	if !isLowerHex(d, 64) {
		return nil, invalid("d tag is not 64 lowercase hex characters")
	}

	st := &Statement{
		Kind:       ev.Kind,
		ID:         ev.ID,
		Author:     ev.PubKey,
		CreatedAt:  int64(ev.CreatedAt),
		D:          d,
		SubjectTag: t.subject.tag[0][0],
		Subject:    t.subject.value(),
		Context:    t.c.value(),
		Content:    ev.Content,
	}
	if err := checkSubject(st, t); err != nil {
		return nil, err
	}
	hints, err := parseHints(t.subject.tag[2:])
	if err != nil {
		return nil, err
	}
	st.BoundHints = hints
	if st.Scopes, err = parseScopes(t.scopes); err != nil {
		return nil, err
	}
	if st.Value, err = parseValue(ev.Kind, t.value.value()); err != nil {
		return nil, err
	}
	if err := parseWindow(st, t); err != nil {
		return nil, err
	}
	if st.Context != "" {
		if len(st.Context) > maxTokenBytes {
			return nil, invalid("c exceeds 128 bytes")
		}
		if !isPath(st.Context) {
			return nil, invalid("c is not canonical (lowercase [a-z0-9._-] segments joined by ':')")
		}
	}
	if st.Labels, err = parseLabels(t.labels); err != nil {
		return nil, err
	}
	if StatementD(st.SubjectTag, st.Subject, st.Scopes, st.Context) != d {
		return nil, invalid("d tag does not match material")
	}
	if utf8.RuneCountInString(ev.Content) > maxContentRunes {
		return nil, invalid("content exceeds 1024 characters")
	}
	return st, nil
}

// checkCounts is the checklist's tag counts: exactly one d, subject,
// v/score; at most one k, c, x, y. Single-valued tags have exactly two
// elements, as the extension reads them; the subject tag may carry hints
// after its value.
func (t *statementTags) checkCounts() error {
	for _, slot := range []*tagSlot{&t.d, &t.subject, &t.value} {
		if slot.count != 1 {
			return invalid("exactly one " + slot.name + " tag required")
		}
	}
	if len(t.subject.tag) < 2 {
		return invalid(t.subject.name + " tag has no value")
	}
	for _, slot := range []*tagSlot{&t.k, &t.c, &t.x, &t.y} {
		if slot.count > 1 {
			return invalid("at most one " + slot.name + " tag allowed")
		}
	}
	for _, slot := range []*tagSlot{&t.d, &t.value, &t.k, &t.c, &t.x, &t.y} {
		if slot.count == 1 && len(slot.tag) != 2 {
			return invalid(slot.name + " tag must have exactly two elements")
		}
	}
	return nil
}

// checkSubject covers the primary subject and its `k` companion.
func checkSubject(st *Statement, t *statementTags) error {
	k := t.k.value()
	if t.k.count == 1 && st.SubjectTag != 'i' {
		return invalid("k tag requires an i subject")
	}
	switch st.SubjectTag {
	case 'p', 'e':
		if !isLowerHex(st.Subject, 64) {
			return invalid(string(st.SubjectTag) + " subject is not 64 lowercase hex characters")
		}
		return nil
	}
	if t.k.count == 1 {
		if !isPath(k) {
			return invalid("k tag is not canonical (lowercase [a-z0-9._-] segments joined by ':')")
		}
		if len(st.Subject) <= len(k)+1 || st.Subject[:len(k)+1] != k+":" {
			return invalid("k tag does not equal the class:property prefix of i")
		}
	}
	return checkTypedSubject(st.Subject)
}

// checkCreatedAt refuses a created_at JavaScript cannot hold exactly.
func checkCreatedAt(ev *nostr.Event) error {
	if ev.CreatedAt < 0 || ev.CreatedAt > maxSafeInteger {
		return invalid("created_at is not a non-negative safe integer")
	}
	return nil
}

// parseHints checks the advisory elements after the primary subject and
// returns the hex pubkeys of bare npub hints.
func parseHints(hints []string) ([]string, error) {
	var bound []string
	for _, h := range hints {
		if isStructuredHint(h) {
			continue
		}
		pubkey, err := DecodeNpub(h)
		if err != nil {
			return nil, invalid("subject hint is neither class:property:value nor a canonical npub")
		}
		if !slices.Contains(bound, pubkey) {
			bound = append(bound, pubkey)
		}
	}
	return bound, nil
}

func parseScopes(tags []nostr.Tag) ([]string, error) {
	if len(tags) == 0 {
		return nil, nil
	}
	scopes := make([]string, 0, len(tags))
	for _, tag := range tags {
		switch {
		case len(tag) != 2:
			return nil, invalid("s tag must have exactly two elements")
		case tag[1] == "":
			return nil, invalid("s value is empty")
		case len(tag[1]) > maxTokenBytes:
			return nil, invalid("s value exceeds 128 bytes")
		case hasUpper(tag[1]):
			return nil, invalid("s value is not lowercase")
		}
		scopes = append(scopes, tag[1])
	}
	sortScopes(scopes)
	return slices.Compact(scopes), nil
}

func parseValue(kind int, v string) (string, error) {
	if kind == KindTrust {
		switch v {
		case "", "1", "0", "-1":
			return v, nil
		}
		return "", invalid(`v is not one of "1", "0", "-1" or "" (delete)`)
	}
	if v == "" {
		return "", nil
	}
	if !isCanonicalScore(v) {
		return "", invalid("score is not a canonical decimal in [0, 100] (at most 6 fraction digits)")
	}
	return v, nil
}

func parseWindow(st *Statement, t *statementTags) error {
	var ok bool
	if t.x.count == 1 {
		if st.ActiveFrom, ok = parseUnixSeconds(t.x.value()); !ok {
			return invalid("x is not a unix-seconds integer")
		}
	}
	if t.y.count == 1 {
		if st.ActiveUntil, ok = parseUnixSeconds(t.y.value()); !ok {
			return invalid("y is not a unix-seconds integer")
		}
		st.Expires = true
	}
	if t.x.count == 1 && t.y.count == 1 && st.ActiveFrom > st.ActiveUntil {
		return invalid("x is later than y")
	}
	return nil
}

// parseLabels validates `l` tags and collapses duplicates, keeping the
// first non-empty description of a repeated label.
func parseLabels(tags []nostr.Tag) ([]Label, error) {
	var labels []Label
	for _, tag := range tags {
		if len(tag) < 2 || tag[1] == "" {
			return nil, invalid("l tag has no label")
		}
		name := tag[1]
		if len(name) > maxTokenBytes {
			return nil, invalid("l label exceeds 128 bytes")
		}
		if !isPath(name) {
			return nil, invalid("l label is not canonical (lowercase [a-z0-9._-] segments joined by ':')")
		}
		description := ""
		if len(tag) > 2 {
			description = tag[2]
		}
		i := slices.IndexFunc(labels, func(l Label) bool { return l.Name == name })
		switch {
		case i < 0:
			labels = append(labels, Label{Name: name, Description: description})
		case labels[i].Description == "":
			labels[i].Description = description
		}
	}
	return labels, nil
}
