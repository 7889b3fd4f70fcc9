package ui

import (
	"dtp-personal/engine/settings"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// newReposGUI shows the Repositories tab with repository sync on.
func newReposGUI(t *testing.T) (*GUI, *fakeEngine) {
	g, eng := newTestGUI(t, tabRepos)
	g.render(withRepos(fixture()))
	return g, eng
}

func TestReposViewShowsRepositoriesAndSyncRelays(t *testing.T) {
	g, _ := newReposGUI(t)
	v := g.repos
	if got := v.summary.Text; got != "2 repositories followed, 57 root events, 2 sync relays, 3 events waiting for what they refer to" {
		t.Errorf("summary %q", got)
	}
	wantRepos := [][]string{
		{"ngit", rootNpub, "42", "wss://relay.ngit.dev wss://nos.lol"},
		{"dtp", words.Npub(root2Hex), "15", "wss://nos.lol"},
	}
	wantRelays := [][]string{
		{"wss://nos.lol", "listed", "healthy", "live", "yes", "14", "2", "2", "1,234", "—"},
		{"wss://relay.ngit.dev", "bootstrap", "healthy, cooling down in 40 s", "live", "yes", "9", "1", "1", "56",
			"refused subscriptions: ERROR: too many concurrent REQs"},
	}
	for name, c := range map[string]struct{ got, want [][]string }{
		"repositories": {v.repos.rows, wantRepos}, "relays": {v.relays.rows, wantRelays},
	} {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s: %d rows, want %d", name, len(c.got), len(c.want))
		}
		for i := range c.want {
			if strings.Join(c.got[i], "|") != strings.Join(c.want[i], "|") {
				t.Errorf("%s row %d:\n got %q\nwant %q", name, i, c.got[i], c.want[i])
			}
		}
	}
	wantRefused := [][]string{
		{"ws://192.168.1.1", "ws:// (only wss:// is dialled)", "1"},
		{"wss://r001.example", "past the cap on relays per repository", "1"},
	}
	if got := v.refused.rows; len(got) != 2 || strings.Join(got[0], "|") != strings.Join(wantRefused[0], "|") ||
		strings.Join(got[1], "|") != strings.Join(wantRefused[1], "|") {
		t.Errorf("relays not dialled %q, want %q", got, wantRefused)
	}
	if want := "At most 200 repository relays, 10 per repository; the relays most repositories share are kept. " +
		"591 not dialled (ws:// (only wss:// is dialled): 1; past the cap on relays per repository: 590)."; v.dialPolicy.Text != want {
		t.Errorf("dial policy %q, want %q", v.dialPolicy.Text, want)
	}
	if v.localRelays.Checked {
		t.Error("local relays shown allowed, the setting is off")
	}
	if v.bootstrap.Text != "wss://relay.ngit.dev" || len(v.services.table.rows) != 1 {
		t.Errorf("bootstrap %q, services %v", v.bootstrap.Text, v.services.table.rows)
	}
	g.showTab(tabRepos, 1400, 900)
	assertShows(t, v.root, "Repositories followed", "Sync relays", "ngit", "wss://nos.lol", "This server's public URLs",
		"Relays not dialled", "ws://192.168.1.1")

	g.render(fixture()) // repository sync off: one short card, no empty tables
	g.showTab(tabRepos, 1400, 901)
	assertShows(t, v.root, "Repository sync is off", "Set up repository sync")
	assertHides(t, v.root, "Repositories followed", "Sync relays")
	test.Tap(v.setUp)
	g.showTab(tabRepos, 1400, 902)
	assertShows(t, v.root, "This server's public URLs")
	assertHides(t, v.root, "Repository sync is off")
	if !strings.HasPrefix(v.summary.Text, "Off.") || len(v.repos.rows) != 0 || len(v.relays.rows) != 0 {
		t.Errorf("off: summary %q, %d repos, %d relays", v.summary.Text, len(v.repos.rows), len(v.relays.rows))
	}
}

func TestReposViewCommandsAndInlineErrors(t *testing.T) {
	g, eng := newReposGUI(t)
	v := g.repos
	v.services.form.entry.SetText("https://git.example.org")
	test.Tap(v.services.form.button)
	g.settle()
	if !strings.Contains(v.services.form.err.text(), "ws:// or wss://") {
		t.Errorf("bad service URL: inline error %q", v.services.form.err.text())
	}
	v.bootstrap.SetText("not a url")
	v.setBootstrap()
	g.settle()
	if v.bootstrapError.text() == "" {
		t.Error("bad bootstrap relay accepted")
	}
	assertSettings(t, eng, nil)

	v.services.form.entry.SetText("WSS://Git.Example.org:443/")
	test.Tap(v.services.form.button)
	v.bootstrap.SetText("wss://boot.example/")
	v.setBootstrap()
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) {
		s.RepoSyncServices, s.RepoSyncBootstrap = []string{"wss://git.example.org"}, "wss://boot.example"
	})
	v.services.table.table.Select(fyneCell(0))
	test.Tap(v.services.remove)
	v.clearBootstrap()
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) { s.RepoSyncServices, s.RepoSyncBootstrap = []string{}, "" })

	test.Tap(v.localRelays)
	g.settle()
	assertSettings(t, eng, func(s *settings.Settings) {
		s.RepoSyncServices, s.RepoSyncBootstrap, s.RepoSyncLocalRelays = []string{}, "", true
	})
}

func TestRepoStateInTrayLine(t *testing.T) {
	rs := withRepos(fixture()).RepoSync
	if got := repoStateLabel(rs); got != "repos 2 live" {
		t.Errorf("all connected: %q", got)
	}
	rs.Relays[0].Connected = false
	if got := repoStateLabel(rs); got != "repos 2, 1 of 2 relays connected" {
		t.Errorf("one down: %q", got)
	}
	rs.Paused = true
	if got := repoStateLabel(rs); got != "repos paused (disk full)" {
		t.Errorf("paused: %q", got)
	}
	if got := repoSummary(rs); !strings.HasPrefix(got, "Paused while the disk is full. ") {
		t.Errorf("paused summary: %q", got)
	}
	if got := repoStateLabel(status.RepoSync{}); got != "" {
		t.Errorf("off: %q", got)
	}
}
