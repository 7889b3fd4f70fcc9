package engine

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// Two instances of our own server: B keeps the repositories that list it;
// A (our service wss://our.example, bootstrap relay B) discovers a
// repository through B and keeps its events, pulled and pushed.
func TestRepositorySyncBetweenTwoServers(t *testing.T) {
	t.Parallel()
	remote, urlB := startEngine(t, Options{})
	if err := remote.Modify(settings.AddRepoService(urlB)); err != nil {
		t.Fatal(err)
	}
	owner, dev := fixture.NewAuthor(71), fixture.NewAuthor(72)
	now := time.Now().Unix()
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	ann := owner.Announce("tool", []string{"wss://our.example", urlB}, []string{dev.Pubkey}, now-100)
	issue := dev.Root(reposync.KindIssue, "crash on start", now-90, ref)
	comment := owner.Tagging(1111, "E", now-80, issue.ID)
	state := dev.RepoState("tool", now-70)
	c := dialRaw(t, urlB)
	for _, ev := range []*nostr.Event{ann, issue, comment, state} {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("remote refused kind %d: %s", ev.Kind, msg)
		}
	}

	local, urlA := startEngine(t, Options{})
	if err := local.Modify(settings.AddRepoService("wss://our.example/")); err != nil {
		t.Fatal(err)
	}
	if err := local.Modify(settings.SetRepoBootstrap(urlB)); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []*nostr.Event{ann, issue, comment, state} {
		// discovery, then the layers, each after the self-subscriber's window
		testutil.EventuallyWithin(t, 20*time.Second, "repository event pulled from B", func() bool {
			has, err := local.store.Has(ev.ID)
			return err == nil && has
		})
	}

	a := dialRaw(t, urlA)
	patch := dev.Root(reposync.KindPatch, "fix", now, ref)
	if ok, msg := a.push(patch); !ok {
		t.Fatalf("patch for a held repository refused: %s", msg)
	}
	stray := dev.Root(reposync.KindPatch, "fix", now, fixture.RepoRef(dev.Pubkey, "unknown"))
	if ok, msg := a.push(stray); ok || msg != "blocked: "+reposync.RuleNotAboutRepo {
		t.Fatalf("patch for an unknown repository: ok=%v %q", ok, msg)
	}

	// the pushed patch joins the plan when the window closes
	testutil.EventuallyWithin(t, 10*time.Second, "two root events followed", func() bool { return local.RepoSyncStatus().RootEvents == 2 })
	code, body := httpGet(t, "http://"+local.ListenAddr()+"/api/v1/status")
	var snap status.Snapshot
	if err := json.Unmarshal([]byte(body), &snap); code != 200 || err != nil {
		t.Fatalf("status: %d %v", code, err)
	}
	rs := snap.RepoSync
	if !rs.Enabled || rs.Repos != 1 || rs.RootEvents != 2 || len(rs.Repositories) != 1 || rs.Repositories[0].Name != "tool" {
		t.Fatalf("repoSync status %+v", rs)
	}
	if i := slices.IndexFunc(rs.Relays, func(r status.RepoRelay) bool { return r.URL == urlB }); i < 0 || !rs.Relays[i].Bootstrap || rs.Relays[i].Filters == 0 {
		t.Fatalf("relay rows %+v, want the bootstrap relay with its filters", rs.Relays)
	}
	_, text := httpGet(t, "http://"+local.ListenAddr()+"/metrics")
	for _, line := range []string{
		`dtp_repo_sync_relay_connected{relay="` + urlB + `"} 1`,
		`dtp_repo_sync_relay_health_state{relay="` + urlB + `",state="healthy"} 1`,
		`dtp_repo_sync_relays_tracked 1`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("metrics lack %q", line)
		}
	}
	attempts := `dtp_repo_sync_relay_connection_attempts_total{relay="` + urlB + `",result="ok"} `
	if !strings.Contains(text, attempts) || strings.Contains(text, attempts+"0\n") {
		t.Error("metrics lack the successful connection attempt")
	}
	if !strings.Contains(text, `dtp_repo_sync_relay_events_received_total{relay="`+urlB+`",source="layer1"}`) {
		t.Error("metrics lack events received by layer")
	}
}

// A repository relay's frames that are not relay messages are counted on
// /metrics as a trust relay's are: the fault relay (the bootstrap relay)
// sends a malformed frame before every event, and the count shows while the
// connection is still up.
func TestRepositoryRelayGarbageFramesAreCounted(t *testing.T) {
	t.Parallel()
	owner := fixture.NewAuthor(73)
	now := time.Now().Unix()
	ann := owner.Announce("tool", []string{"wss://our.example"}, nil, now-100)
	garbled := faultrelay.StartForTest(t, faultrelay.Mode{Garbage: true}, ann)

	local, _ := startEngine(t, Options{})
	if err := local.Modify(settings.AddRepoService("wss://our.example/")); err != nil {
		t.Fatal(err)
	}
	if err := local.Modify(settings.SetRepoBootstrap(garbled.URL)); err != nil {
		t.Fatal(err)
	}
	// the bootstrap relay is asked for discovery: announcements
	testutil.EventuallyWithin(t, 20*time.Second, "announcement pulled through the garbage", func() bool {
		has, err := local.store.Has(ann.ID)
		return err == nil && has
	})
	series := `dtp_repo_sync_relay_garbage_frames_total{relay="` + garbled.URL + `"} `
	testutil.EventuallyWithin(t, 10*time.Second, "garbage frames counted", func() bool {
		_, text := httpGet(t, "http://"+local.ListenAddr()+"/metrics")
		i := strings.Index(text, series)
		if i < 0 {
			return false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(text[i+len(series):], "\n", 2)[0]), 10, 64)
		return err == nil && n > 0 && n == garbled.EventsSent()
	})
}

// A repository whose identifier needs percent-encoding in a URL (a space,
// '/', non-ASCII, '%', ':') works end to end: its announcement, whose clone
// URL names our service with the identifier percent-encoded and whose
// relays tag names our service and a sync relay (not the bootstrap), is
// followed; its state, patch, issue and a comment on the issue are fetched
// from the sync relay and served back by the identifier's coordinate; a
// patch pushed to us is kept; the status names the repository by it.
func TestRepositoryIdentifierNeedingPercentEncoding(t *testing.T) {
	t.Parallel()
	owner, dev := fixture.NewAuthor(120), fixture.NewAuthor(121)
	now := time.Now().Unix()
	d := "my tool/ünï 100%:x"
	npub, _ := nip19.EncodePublicKey(owner.Pubkey)
	clone := "https://our.example/" + npub + "/" + url.PathEscape(d) + ".git"
	sync := faultrelay.StartForTest(t, faultrelay.Mode{})
	ann := owner.Sign(&nostr.Event{Kind: reposync.KindAnnouncement, CreatedAt: nostr.Timestamp(now - 100), Tags: nostr.Tags{
		{"d", d}, {"name", "my tool"}, {"clone", clone}, {"relays", "wss://our.example", sync.URL}}})
	ref := fixture.RepoRef(owner.Pubkey, d)
	state := owner.RepoState(d, now-95)
	patch := dev.Root(reposync.KindPatch, "fix", now-90, ref)
	issue := dev.Root(reposync.KindIssue, "crash", now-85, ref)
	comment := owner.Tagging(1111, "E", now-80, issue.ID)
	sync.Publish(ann, state, patch, issue, comment)
	bootstrap := faultrelay.StartForTest(t, faultrelay.Mode{}, ann)

	eng, ours := startEngine(t, Options{})
	for _, edit := range []func(*settings.Settings) error{
		settings.SetRepoLocalRelays(true), settings.AddRepoService("wss://our.example"), settings.SetRepoBootstrap(bootstrap.URL),
	} {
		if err := eng.Modify(edit); err != nil {
			t.Fatal(err)
		}
	}
	for _, ev := range []*nostr.Event{ann, state, patch, issue, comment} {
		testutil.EventuallyWithin(t, 20*time.Second, "kind "+strconv.Itoa(ev.Kind)+" fetched from the sync relay", func() bool {
			has, err := eng.store.Has(ev.ID)
			return err == nil && has
		})
	}
	rs := eng.RepoSyncStatus()
	if len(rs.Repositories) != 1 || rs.Repositories[0].ID != d || rs.Repositories[0].Ref != ref || !slices.Contains(rs.Repositories[0].Relays, sync.URL) {
		t.Fatalf("repositories %+v, want %q followed on the sync relay", rs.Repositories, d)
	}
	c := dialRaw(t, ours)
	pushed := dev.Root(reposync.KindPatch, "another fix", now-70, ref)
	if ok, msg := c.push(pushed); !ok {
		t.Fatalf("a patch pushed for the repository refused: %s", msg)
	}
	got := map[string]bool{}
	frame, _ := json.Marshal([]any{"REQ", "r", nostr.Filter{Tags: nostr.TagMap{"a": {ref}}}, nostr.Filter{Tags: nostr.TagMap{"d": {d}}}})
	if err := c.write(string(frame)); err != nil {
		t.Fatal(err)
	}
	for msg := c.read(); str(msg[0]) != "EOSE"; msg = c.read() {
		var ev nostr.Event
		if str(msg[0]) != "EVENT" || json.Unmarshal(msg[2], &ev) != nil {
			t.Fatalf("REQ answered %s", msg)
		}
		got[ev.ID] = true
	}
	for _, ev := range []*nostr.Event{ann, state, patch, issue, pushed} {
		if !got[ev.ID] {
			t.Fatalf("kind %d not served by the repository's coordinate or identifier (served %d events)", ev.Kind, len(got))
		}
	}
}
