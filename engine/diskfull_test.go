package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// The disk is filled for real: SQLite's page cap freezes the file at its
// size, so writes fail with SQLITE_FULL as on a full filesystem.
func TestFullDiskRefusesWholeBatchesKeepsReadsAndRecovers(t *testing.T) {
	t.Parallel()
	eng, wsURL := startEngine(t, Options{})
	c := dialRaw(t, wsURL)
	author := fixture.NewAuthor(1)
	next := 0
	trust := func() *nostr.Event {
		next++
		return author.Trust(fixture.P(fixture.NewAuthor(1000+next).Pubkey), "1", t0+int64(next),
			fixture.Content(strings.Repeat("full disk ", 50)))
	}
	var kept []string
	for range 20 {
		ev := trust()
		if ok, msg := c.push(ev); !ok {
			t.Fatal(msg)
		}
		kept = append(kept, ev.ID)
	}
	uncapped, err := eng.store.CapPages(0) // 0 reads the cap
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.store.CapPages(1); err != nil {
		t.Fatal(err)
	}

	// bursts of pushes, answered in batches, until the disk is full
	var refused []string
	for burst := 0; len(refused) == 0; burst++ {
		if burst == 50 {
			t.Fatal("the capped database never filled")
		}
		evs := make([]*nostr.Event, 100)
		for i := range evs {
			evs[i] = trust()
			b, _ := json.Marshal([]any{"EVENT", evs[i]})
			if err := c.write(string(b)); err != nil {
				t.Fatal(err)
			}
		}
		for range evs {
			msg := c.read()
			var ok bool
			_ = json.Unmarshal(msg[2], &ok)
			switch id, text := str(msg[1]), str(msg[3]); {
			case ok:
				kept = append(kept, id)
			case strings.HasPrefix(text, "error: storage full"):
				refused = append(refused, id)
			default:
				t.Fatalf("refused for another reason: %s", text)
			}
		}
	}

	testutil.Eventually(t, "sync paused with state error, disk-full", func() bool {
		s := eng.Status()
		return s.State == status.StateError && slices.Contains(s.Coverage.Reasons, status.ReasonDiskFull) &&
			s.RepoSync.Paused
	})
	if got := c.req(nostr.Filter{IDs: kept}); len(got) != len(kept) {
		t.Fatalf("reads on a full disk: %d of %d acknowledged events", len(got), len(kept))
	}
	if got := c.req(nostr.Filter{IDs: refused}); len(got) != 0 {
		t.Fatalf("%d events of failed batches were stored", len(got))
	}
	if report, err := eng.store.IntegrityCheck(); err != nil || report != "ok" {
		t.Fatalf("integrity check on a full disk: %q %v", report, err)
	}

	// space returns: sync resumes and pushes are stored, without a restart
	if _, err := eng.store.CapPages(uncapped); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "sync resumed", func() bool {
		s := eng.Status()
		return s.State != status.StateError && s.State != status.StateStopped &&
			!slices.Contains(s.Coverage.Reasons, status.ReasonDiskFull) && !s.RepoSync.Paused
	})
	if ok, msg := c.push(trust()); !ok {
		t.Fatalf("push after space returned: %s", msg)
	}
}
