package ingest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// admittingChecker passes every event to the second stage, which refuses
// one kind and records what it saw.
type admittingChecker struct {
	mu   sync.Mutex
	seen []string
}

func (*admittingChecker) Check(*nostr.Event) (validation.Parsed, error) {
	return validation.Parsed{}, nil
}

func (c *admittingChecker) Admit(ev *nostr.Event, source string) error {
	c.mu.Lock()
	c.seen = append(c.seen, source)
	c.mu.Unlock()
	if ev.Kind == 1 {
		return &validation.Rejection{Prefix: "blocked", Rule: "not about a repository this server keeps"}
	}
	return nil
}

// The second stage runs only for events whose signature holds, and its
// refusal reaches the submitter.
func TestAdmitterRunsAfterTheSignature(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "dtp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	checker := &admittingChecker{}
	p, err := New(st, checker, validation.VerifyEvent, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	good := statements(1)[0]
	note := fixture.NewAuthor(5).Sign(&nostr.Event{Kind: 1, CreatedAt: 1})
	forged := statements(2)[1]
	forged.Content = "changed after signing"

	ctx := context.Background()
	if r, _ := p.SubmitWait(ctx, good, "push"); r.Outcome != Stored {
		t.Fatalf("admitted event: %+v", r)
	}
	if r, _ := p.SubmitWait(ctx, note, "reposync:wss://b"); r.Outcome != Rejected || r.Message != "blocked: not about a repository this server keeps" {
		t.Fatalf("refused by the second stage: %+v", r)
	}
	if r, _ := p.SubmitWait(ctx, forged, "push"); r.Outcome != Rejected {
		t.Fatalf("forged event: %+v", r)
	}
	checker.mu.Lock()
	defer checker.mu.Unlock()
	if len(checker.seen) != 2 || checker.seen[1] != "reposync:wss://b" {
		t.Fatalf("second stage saw %v, want the two signed events with their sources", checker.seen)
	}
}
