package resolver

import (
	"context"
	"encoding/json"
	"time"
)

// Batch is the answer to one question about many subjects (SPEC §7
// batches): one entry per subject, in the order asked, all from one view of
// the graph and one walk.
type Batch struct {
	Answers      []BatchEntry `json:"answers"`
	GraphVersion uint64       `json:"graphVersion"`
	// ComputeMicros is the time the whole batch took.
	ComputeMicros int64 `json:"computeMicros"`
}

// BatchEntry is one subject's answer, or why that subject could not be
// asked (a malformed subject does not spoil the others).
type BatchEntry struct {
	Answer *Answer
	// Subject and Error are set instead of Answer for a subject that does
	// not parse: Subject as it was asked.
	Subject, Error string
}

// MarshalJSON writes the answer itself, or {"subject": …, "error": …}.
func (e BatchEntry) MarshalJSON() ([]byte, error) {
	if e.Answer != nil {
		return json.Marshal(e.Answer)
	}
	return json.Marshal(struct {
		Subject string `json:"subject"`
		Error   string `json:"error"`
	}{e.Subject, e.Error})
}

// UnmarshalJSON reads either form back (the CLI reads a server's batch).
func (e *BatchEntry) UnmarshalJSON(b []byte) error {
	var probe struct {
		Subject string `json:"subject"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Error != "" {
		*e = BatchEntry{Subject: probe.Subject, Error: probe.Error}
		return nil
	}
	e.Answer = new(Answer)
	return json.Unmarshal(b, e.Answer)
}

// ResolveBatch answers q (its context, scope, roots and band) for each of
// subjects, in order, sharing one walk: the answers are those Resolve gives
// one by one at the same graph version. A malformed band fails the batch; a
// malformed subject fails only its entry.
func (r *Resolver) ResolveBatch(ctx context.Context, q Query, subjects []string) (Batch, error) {
	start := time.Now()
	entries := make([]BatchEntry, len(subjects))
	var parsed []parsedSubject
	var at []int // entries[at[i]] answers parsed[i]
	for i, text := range subjects {
		subject, refs, err := parseSubject(text)
		if err != nil {
			entries[i] = BatchEntry{Subject: text, Error: err.Error()}
			continue
		}
		parsed = append(parsed, parsedSubject{subject, refs})
		at = append(at, i)
	}
	answers, err := r.answerAll(ctx, q, parsed)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{Answers: entries}
	for i := range answers {
		entries[at[i]].Answer = &answers[i]
		b.GraphVersion = answers[i].GraphVersion
	}
	if len(answers) == 0 {
		b.GraphVersion = r.heap.Version()
	}
	b.ComputeMicros = time.Since(start).Microseconds()
	return b, nil
}
