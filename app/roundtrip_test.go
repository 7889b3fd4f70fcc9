package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
)

// `export` then `import` into a fresh data directory keeps every event, of
// the trust and the repository profile, on both import paths (a running
// server's WebSocket, and the engine opened by the command), with the file
// upside down: a comment before its issue, the issue before its repository's
// announcement.
func TestExportImportRoundTripCLI(t *testing.T) {
	root, alice := fixture.NewAuthor(91), fixture.NewAuthor(92)
	owner, dev := fixture.NewAuthor(93), fixture.NewAuthor(94)
	now := time.Now().Unix()
	ann := owner.Announce("tool", []string{"wss://our.example"}, []string{dev.Pubkey}, now-100)
	issue := dev.Root(1621, "crash on start", now-90, fixture.RepoRef(owner.Pubkey, "tool"))
	comment := owner.Tagging(1111, "E", now-80, issue.ID)
	evs := []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", 1700000000),
		alice.Claims("alice", "5", 1700000000),
		ann,
		dev.Announce("tool", []string{"wss://dev.example"}, nil, now-99), // a maintainer's, kept for the owner's
		owner.RepoState("tool", now-95),
		issue,
		comment,
		owner.Tagging(1630, "e", now-60, issue.ID),
	}
	var ids []string
	for _, ev := range evs {
		ids = append(ids, ev.ID)
	}
	slices.Sort(ids)

	src := t.TempDir()
	if _, err := cliRun(t, src, "repo-sync", "service", "add", "wss://our.example"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs { // one per import, in dependency order
		file := filepath.Join(t.TempDir(), "event.jsonl")
		if err := os.WriteFile(file, []byte(ev.String()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := cliRun(t, src, "import", file); err != nil || !strings.Contains(out, "1 stored") {
			t.Fatalf("import kind %d into the source: %q %v", ev.Kind, out, err)
		}
	}
	exported, err := cliRun(t, src, "export")
	if err != nil {
		t.Fatal(err)
	}
	if got := exportedIDs(t, exported); !slices.Equal(got, ids) {
		t.Fatalf("export without --kinds wrote %d of the %d events:\n%s", len(got), len(ids), exported)
	}
	if only, err := cliRun(t, src, "export", "--kinds", "1621,1111"); err != nil || len(exportedIDs(t, only)) != 2 {
		t.Fatalf("export --kinds 1621,1111: %v\n%s", err, only)
	}

	lines := strings.Split(strings.TrimSuffix(exported, "\n"), "\n")
	slices.Reverse(lines) // storage order is arrival order
	upsideDown := strings.Join(lines, "\n") + "\n"
	at := func(id string) int { return strings.Index(upsideDown, `"id":"`+id+`"`) }
	if !(at(comment.ID) < at(issue.ID) && at(issue.ID) < at(ann.ID)) {
		t.Fatalf("the file does not hold the comment before its issue before the announcement:\n%s", upsideDown)
	}
	file := filepath.Join(t.TempDir(), "all.jsonl")
	if err := os.WriteFile(file, []byte(upsideDown), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "8 stored, 0 duplicates, 0 rejected of 8 lines\n"

	t.Run("running server", func(t *testing.T) {
		data := t.TempDir()
		s := startServer(t, data)
		if _, err := cliRun(t, data, "repo-sync", "service", "add", "wss://our.example"); err != nil {
			t.Fatal(err)
		}
		awaitRepoSync(t, data, s, []string{"wss://our.example"}, "")
		if out, err := cliRun(t, data, "import", file); err != nil || out != want {
			t.Fatalf("import over the server's WebSocket printed %q (%v), want %q\n%s", out, err, want, s.log())
		}
		again, err := cliRun(t, data, "export") // beside the running server
		if err != nil || !slices.Equal(exportedIDs(t, again), ids) {
			t.Fatalf("export after the import: %v\n%s", err, again)
		}
	})
	t.Run("offline", func(t *testing.T) {
		data := t.TempDir()
		if _, err := cliRun(t, data, "repo-sync", "service", "add", "wss://our.example"); err != nil {
			t.Fatal(err)
		}
		if out, err := cliRun(t, data, "import", file); err != nil || out != want {
			t.Fatalf("offline import printed %q (%v), want %q", out, err, want)
		}
		again, err := cliRun(t, data, "export")
		if err != nil || !slices.Equal(exportedIDs(t, again), ids) {
			t.Fatalf("export after the import: %v\n%s", err, again)
		}
	})
}

// exportedIDs are the sorted ids of an export's lines, each checked to be a
// whole event.
func exportedIDs(t *testing.T, export string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(export), "\n") {
		var ev nostr.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil || !ev.CheckID() {
			t.Fatalf("exported line is not an event: %s", line)
		}
		ids = append(ids, ev.ID)
	}
	slices.Sort(ids)
	return ids
}
