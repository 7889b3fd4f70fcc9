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
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// The repository sync settings are scripted like the others and reach a
// running server on the same data directory within seconds.
func TestRepoSyncSettingsReachARunningServer(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, data)
	for _, step := range []struct {
		args []string
		out  string
	}{
		{[]string{"repo-sync", "service", "add", "WSS://Relay.Example:443/"}, "added wss://relay.example\n"},
		{[]string{"repo-sync", "service", "add", "wss://b.example"}, "added wss://b.example\n"},
		{[]string{"repo-sync", "service", "add", "wss://relay.example"}, "already there: wss://relay.example\n"},
		{[]string{"repo-sync", "service", "remove", "wss://b.example/"}, "removed wss://b.example\n"},
		{[]string{"repo-sync", "service", "list"}, "wss://relay.example\n"},
		{[]string{"repo-sync", "service", "list", "--json"}, "[\n  \"wss://relay.example\"\n]\n"},
		{[]string{"repo-sync", "bootstrap", "wss://boot.example/"}, "bootstrap relay wss://boot.example\n"},
		{[]string{"repo-sync", "bootstrap"}, "bootstrap relay wss://boot.example\n"},
		{[]string{"repo-sync", "local-relays"}, localRelaysLine(false) + "\n"},
		{[]string{"repo-sync", "local-relays", "allow"}, localRelaysLine(true) + "\n"},
	} {
		out, err := cliRun(t, data, step.args...)
		if err != nil || out != step.out {
			t.Fatalf("%v printed %q (%v), want %q", step.args, out, err, step.out)
		}
	}
	awaitRepoSync(t, data, s, []string{"wss://relay.example"}, "wss://boot.example")
	awaitStatus(t, data, s, "local relays allowed", func(st struct {
		Settings struct{ RepoSyncLocalRelays bool }
	}) bool {
		return st.Settings.RepoSyncLocalRelays
	})
	if out, err := cliRun(t, data, "repo-sync", "local-relays", "refuse"); err != nil || out != localRelaysLine(false)+"\n" {
		t.Fatalf("local-relays refuse printed %q (%v)", out, err)
	}

	if out, err := cliRun(t, data, "repo-sync", "bootstrap", "--none"); err != nil || out != "no bootstrap relay\n" {
		t.Fatalf("bootstrap --none printed %q (%v)", out, err)
	}
	awaitRepoSync(t, data, s, []string{"wss://relay.example"}, "")

	for _, bad := range [][]string{
		{"repo-sync", "service", "add", "https://relay.example"},
		{"repo-sync", "bootstrap", "relay.example"},
	} {
		if _, err := cliRun(t, data, bad...); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
	for _, usage := range [][]string{
		{"repo-sync", "bootstrap", "wss://boot.example", "--none"},
		{"repo-sync", "service", "add"},
		{"repo-sync", "bogus"},
		{"repo-sync", "local-relays", "maybe"},
	} {
		if _, err := cliRun(t, data, usage...); err == nil || !strings.HasPrefix(err.Error(), "exit status 2:") {
			t.Errorf("%v: %v, want a usage error (exit 2)", usage, err)
		}
	}
}

// awaitRepoSync waits until the server's status shows these settings.
func awaitRepoSync(t *testing.T, data string, s *server, services []string, bootstrap string) {
	t.Helper()
	type seen struct {
		Settings struct {
			RepoSyncServices  []string
			RepoSyncBootstrap string
		}
	}
	awaitStatus(t, data, s, "the repository sync settings", func(st seen) bool {
		return slices.Equal(st.Settings.RepoSyncServices, services) && st.Settings.RepoSyncBootstrap == bootstrap
	})
}

// `repo-sync status` shows what a running server follows: an announcement
// imported through the pipeline makes a followed repository.
func TestRepoSyncStatusOfARunningServer(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, data)
	if _, err := cliRun(t, data, "repo-sync", "service", "add", "wss://our.example"); err != nil {
		t.Fatal(err)
	}
	awaitRepoSync(t, data, s, []string{"wss://our.example"}, "")
	owner := fixture.NewAuthor(81)
	// it also names relays the dial policy refuses: by ws:// and at a private address
	ann := owner.Announce("tool", []string{"wss://our.example", "ws://relay.example", "wss://10.1.2.3"}, nil, time.Now().Unix()-10)
	issue := fixture.NewAuthor(82).Root(1621, "bug", time.Now().Unix()-5, fixture.RepoRef(owner.Pubkey, "tool"))
	// one import per event, the announcement first (a single file in any order is TestExportImportRoundTripCLI's)
	for _, ev := range []*nostr.Event{ann, issue} {
		file := filepath.Join(t.TempDir(), "event.jsonl")
		b, _ := json.Marshal(ev)
		if err := os.WriteFile(file, append(b, '\n'), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := cliRun(t, data, "import", file); err != nil || !strings.Contains(out, "1 stored") {
			t.Fatalf("import kind %d: %q %v", ev.Kind, out, err)
		}
	}
	var rs status.RepoSync
	deadline := time.Now().Add(15 * time.Second) // the self-subscriber's window is 5 s
	for rs.Repos != 1 || rs.RootEvents != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("repo-sync status %+v, want one repository with one root event", rs)
		}
		time.Sleep(200 * time.Millisecond)
		out, err := cliRun(t, data, "repo-sync", "status", "--json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatalf("repo-sync status --json: %v\n%s", err, out)
		}
	}
	out, err := cliRun(t, data, "repo-sync", "status")
	npub, _ := validation.EncodeNpub(owner.Pubkey)
	if err != nil || !strings.Contains(out, "1 followed, 1 root events") || !strings.Contains(out, "tool") || !strings.Contains(out, npub) {
		t.Fatalf("repo-sync status printed %q (%v)", out, err)
	}
	for _, line := range []string{
		"dial policy   local relays refused (only wss:// at public addresses); at most 200 repository relays, 10 per repository\n",
		"not dialled   2 (not-wss 1, private 1)\n",
		"  ws://relay.example  not-wss  1 repos\n",
		"  wss://10.1.2.3      private  1 repos\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("repo-sync status lacks %q:\n%s", line, out)
		}
	}
}
