package engine

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// An announcement is written by anyone. One that lists a relay by ws://, at
// loopback, private, link-local and unique-local addresses, and 600 relays
// by a name (localhost) that resolves to loopback makes the server connect
// nowhere: the URLs are refused by the plan, the names at connect time on
// the address they resolve to, and past the caps the rest are not taken.
// Every refused relay is counted by its reason in the status and on
// /metrics. The user's own bootstrap relay, also on loopback, is dialled.
func TestAnnouncedLocalRelaysAreNotDialled(t *testing.T) {
	t.Parallel()
	target := faultrelay.StartForTest(t, faultrelay.Mode{}) // where every announced relay points
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]
	owner := fixture.NewAuthor(91)
	listed := []string{"wss://our.example",
		"ws://127.0.0.1:" + port, "wss://127.0.0.1:" + port, "wss://192.168.1.1", "wss://[fe80::1]", "wss://[fd00::1]"}
	for i := range 600 {
		listed = append(listed, fmt.Sprintf("wss://localhost:%s/r%03d", port, i))
	}
	ann := owner.Announce("tool", listed, nil, time.Now().Unix()-100)
	boot := faultrelay.StartForTest(t, faultrelay.Mode{}, ann)

	eng, _ := startEngine(t, Options{})
	l := eng.Settings().Limits
	l.MaxRepoRelays = 8 // of the 10 the per-repository cap takes, 8 are dialled
	for _, change := range []func(*settings.Settings) error{settings.SetLimits(l),
		settings.AddRepoService("wss://our.example"), settings.SetRepoBootstrap(boot.URL)} {
		if err := eng.Modify(change); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{
		reposync.RefusedNotWSS: 1, "loopback": 1, "private": 1, "link-local": 1, "unique-local": 1,
		reposync.RefusedPerRepo: 590, reposync.RefusedRepoCap: 2, reposync.RefusedResolves: 8,
	}
	testutil.EventuallyWithin(t, 20*time.Second, "every announced relay refused, by reason", func() bool {
		return maps.Equal(eng.RepoSyncStatus().RefusedByReason, want)
	})
	st := eng.RepoSyncStatus()
	if st.LocalRelays || st.MaxRelays != 8 || st.MaxRelaysPerRepo != 10 || len(st.RefusedRelays) != 200 {
		t.Errorf("status: local relays %v, caps %d/%d, %d listed; want false, 8/10, the first 200",
			st.LocalRelays, st.MaxRelays, st.MaxRelaysPerRepo, len(st.RefusedRelays))
	}
	if r := st.RefusedRelays[0]; r.URL != "ws://127.0.0.1:"+port || r.Reason != reposync.RefusedNotWSS || r.Repos != 1 {
		t.Errorf("first refused relay %+v, want ws://127.0.0.1:%s not-wss in 1 repository", r, port)
	}
	_, text := httpGet(t, "http://"+eng.ListenAddr()+"/metrics")
	for reason, n := range want {
		if series := `dtp_repo_sync_relays_refused{reason="` + reason + `"} ` + strconv.Itoa(n); !strings.Contains(text, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
	if target.Accepts() != 0 {
		t.Fatalf("the relay the announcement points at took %d connections, want none", target.Accepts())
	}
	if boot.Accepts() == 0 { // the count is not blind: the user's relay was reached
		t.Fatal("the bootstrap relay took no connection")
	}
}
