package main

import (
	"slices"
	"strings"
	"testing"
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
		{[]string{"repo-sync", "service", "add", "wss://relay.example"}, "added wss://relay.example\n"},
		{[]string{"repo-sync", "service", "remove", "wss://b.example/"}, "removed wss://b.example\n"},
		{[]string{"repo-sync", "service", "list"}, "wss://relay.example\n"},
		{[]string{"repo-sync", "service", "list", "--json"}, "[\n  \"wss://relay.example\"\n]\n"},
		{[]string{"repo-sync", "bootstrap", "wss://boot.example/"}, "bootstrap relay wss://boot.example\n"},
		{[]string{"repo-sync", "bootstrap"}, "bootstrap relay wss://boot.example\n"},
	} {
		out, err := cliRun(t, data, step.args...)
		if err != nil || out != step.out {
			t.Fatalf("%v printed %q (%v), want %q", step.args, out, err, step.out)
		}
	}
	awaitRepoSync(t, data, s, []string{"wss://relay.example"}, "wss://boot.example")

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
