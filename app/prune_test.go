package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine"
	"dtp-personal/engine/fixture"
)

// Issue 29 item 3 from the command line against a running server: prune's
// dry run says how many events and bytes and removes nothing; prune removes
// the outsiders' events in the server (which then serves them no more, and
// stores one pushed again), keeps the root's and its network's, and the
// file is smaller; delete --filter keeps the root's own; only the owner may
// prune over HTTP; --auto is a setting; the same works with no server.
func TestPruneAndDeleteFromTheCLI(t *testing.T) {
	data := t.TempDir()
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	if _, err := cliRun(t, data, "roots", "add", root.Pubkey); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, data)
	now := time.Now().Unix()
	mine := root.Trust(fixture.P(alice.Pubkey), "1", now-100)
	theirs := alice.Trust(fixture.XUser("5"), "-1", now-100, fixture.Scopes("x.com"))
	var outsiders []*nostr.Event
	for i := range 5 {
		o := fixture.NewAuthor(100 + i)
		for j := range 40 {
			outsiders = append(outsiders, o.Trust(fixture.XUser(strconv.Itoa(1000+i*100+j)), "1", now-int64(200+j),
				fixture.Scopes("x.com"), fixture.Content(strings.Repeat("words of an outsider ", 45))))
		}
	}
	pushTo(t, s.addr, append([]*nostr.Event{mine, theirs}, outsiders...)...)

	var r engine.RemovalReport
	prune := func(args ...string) {
		t.Helper()
		out, err := cliRun(t, data, append([]string{"prune", "--json"}, args...)...)
		if err != nil || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("prune %v: %v\n%s", args, err, out)
		}
	}
	prune("--dry-run", "--days", "0")
	if !r.DryRun || r.Removed != len(outsiders) || r.Authors != 5 || r.Bytes < int64(len(outsiders)*900) || !holds(t, s.addr, outsiders[0].ID) {
		t.Fatalf("dry run: %+v", r)
	}
	if out, err := cliRun(t, data, "prune", "--dry-run"); err != nil ||
		!strings.HasPrefix(out, "would remove 0 events (0.0 kB) of 0 people outside your network for more than 30 days\n"+
			"5 more people outside for less: their events stay until then\n") {
		t.Fatalf("dry run with the default days: %v\n%s", err, out)
	}

	req, _ := http.NewRequest(http.MethodPost, "http://"+s.addr+"/api/v1/prune", strings.NewReader(`{"days":0}`))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a prune without the owner's token: %v %v", resp, err)
	}

	prune("--days", "0")
	if r.DryRun || r.Removed != len(outsiders) || r.VacuumMode != "incremental" || r.FileAfter >= r.FileBefore {
		t.Fatalf("prune: %+v", r)
	}
	for _, ev := range outsiders[:3] {
		if holds(t, s.addr, ev.ID) {
			t.Fatalf("the running server still serves pruned %s", ev.ID)
		}
	}
	if !holds(t, s.addr, mine.ID) || !holds(t, s.addr, theirs.ID) {
		t.Fatal("the prune removed the root's or its network's events")
	}
	pushTo(t, s.addr, outsiders[3]) // stored again, not a duplicate the server still remembers
	if !holds(t, s.addr, outsiders[3].ID) {
		t.Fatal("a pruned event pushed again is not stored")
	}

	out, err := cliRun(t, data, "delete", "--filter", `{"authors":["`+root.Pubkey+`","`+outsiders[3].PubKey+`"]}`, "--dry-run")
	if err != nil || !strings.HasPrefix(out, "would delete 1 event (1.") || !strings.Contains(out, " kB) of 2 matching\nkept: 1 your roots' own\ndatabase file ") {
		t.Fatalf("delete --dry-run: %v\n%s", err, out)
	}
	if out, err := cliRun(t, data, "delete", "--filter", `{"authors":["`+outsiders[3].PubKey+`"]}`); err != nil || !strings.HasPrefix(out, "deleted 1 event") {
		t.Fatalf("delete: %v\n%s", err, out)
	}
	if holds(t, s.addr, outsiders[3].ID) {
		t.Fatal("the running server still serves the deleted event")
	}
	if _, err := cliRun(t, data, "delete", "--filter", `{}`); err == nil || !strings.Contains(err.Error(), "the filter is empty") {
		t.Fatalf("delete with an empty filter: %v", err)
	}
	if out, err := cliRun(t, data, "prune", "--auto", "30"); err != nil || !strings.Contains(out, "more than 30 days") {
		t.Fatalf("prune --auto 30: %v %s", err, out)
	}
	awaitStatus(t, data, s, "automatic pruning", func(st struct{ Settings struct{ PruneAfterDays int } }) bool {
		return st.Settings.PruneAfterDays == 30
	})
	if out, err := cliRun(t, data, "db", "compact"); err != nil || !strings.HasSuffix(out, "auto-vacuum incremental\n") {
		t.Fatalf("db compact: %v %s", err, out)
	}

	// with no server, the command opens the data directory itself
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	if _, running := engine.FindRunning(data); running {
		t.Fatal("the server still runs")
	}
	out, err = cliRun(t, data, "delete", "--filter", `{"kinds":[32009]}`, "--dry-run")
	if err != nil || !strings.HasPrefix(out, "would delete 0 events (0.0 kB) of 2 matching\nkept: 1 your roots' own, 1 by people answers from your roots use\n") {
		t.Fatalf("delete --dry-run with no server: %v\n%s", err, out)
	}
}
