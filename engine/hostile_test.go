package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// count sends a COUNT with filters and returns the count it was answered.
func (c *rawClient) count(filters ...nostr.Filter) int64 {
	c.t.Helper()
	frame := []any{"COUNT", "n"}
	for _, f := range filters {
		frame = append(frame, f)
	}
	b, _ := json.Marshal(frame)
	if err := c.write(string(b)); err != nil {
		c.t.Fatal(err)
	}
	msg := c.read()
	if str(msg[0]) != "COUNT" {
		c.t.Fatalf("COUNT answered %s", msg)
	}
	var n struct{ Count int64 }
	if err := json.Unmarshal(msg[2], &n); err != nil {
		c.t.Fatal(err)
	}
	return n.Count
}

// NIP-45 filters are OR-ed: several filters count the events any of them
// matches, each once.
func TestCountWithSeveralFiltersCountsTheUnion(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	for i := range 20 {
		for _, a := range []fixture.Author{alice, bob} {
			if ok, msg := c.push(a.Trust(fixture.XUser(fmt.Sprint(i)), "1", int64(t0+i))); !ok {
				t.Fatalf("fixture refused: %s", msg)
			}
		}
	}
	all := nostr.Filter{Kinds: []int{32009}}
	byAlice := nostr.Filter{Authors: []string{alice.Pubkey}}
	late := nostr.Filter{Since: ptr(nostr.Timestamp(t0 + 15))}
	for name, tc := range map[string]struct {
		filters []nostr.Filter
		want    int64
	}{
		"one":                     {[]nostr.Filter{all}, 40},
		"ten identical":           {[]nostr.Filter{all, all, all, all, all, all, all, all, all, all}, 40},
		"alice or late":           {[]nostr.Filter{byAlice, late}, 20 + 5},
		"alice or late, limit 1 ": {[]nostr.Filter{{Authors: []string{alice.Pubkey}, Limit: 1}, late}, 20 + 5},
	} {
		if got := c.count(tc.filters...); got != tc.want {
			t.Errorf("%s: COUNT answered %d, want %d", name, got, tc.want)
		}
	}
}

// An oversized REQ or COUNT is refused with CLOSED under its own
// subscription id, so the client can tell which request was refused.
func TestOversizedRequestIsClosedUnderItsSubscriptionID(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	authors := make([]string, 3000) // 3000 × 67 bytes: past the 128 KiB message limit
	for i := range authors {
		authors[i] = fmt.Sprintf("%064x", i)
	}
	for _, label := range []string{"REQ", "COUNT"} {
		b, _ := json.Marshal([]any{label, "big-" + label, nostr.Filter{Authors: authors}})
		if err := c.write(string(b)); err != nil {
			t.Fatal(err)
		}
		msg := c.read()
		if str(msg[0]) != "CLOSED" || str(msg[1]) != "big-"+label || !strings.HasPrefix(str(msg[2]), "invalid: message of ") {
			t.Errorf("oversized %s answered %s, want CLOSED big-%s \"invalid: message of …\"", label, msg, label)
		}
	}
	// no readable subscription id: a NOTICE is all that can be said
	b, _ := json.Marshal([]any{"REQ", 7, nostr.Filter{Authors: authors}})
	if err := c.write(string(b)); err != nil {
		t.Fatal(err)
	}
	if msg := c.read(); str(msg[0]) != "NOTICE" || !strings.HasPrefix(str(msg[1]), "invalid: message of ") {
		t.Errorf("oversized REQ without a string id answered %s, want a NOTICE naming the limit", msg)
	}
}

// status names the address the server actually listens on, not the stored
// setting: here a port the system chose.
func TestStatusShowsTheActualListenAddress(t *testing.T) {
	t.Parallel()
	eng, wsURL := startEngine(t, Options{})
	code, body := httpGet(t, "http"+strings.TrimPrefix(wsURL, "ws")+"/api/v1/status")
	var st struct {
		Listen string `json:"listen"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("status: %d %s", code, body)
	}
	if st.Listen != eng.ListenAddr() || st.Listen == settings.DefaultListen {
		t.Errorf("status says it listens on %q; it listens on %s", st.Listen, eng.ListenAddr())
	}
}

// An idle keep-alive HTTP connection is closed after the idle timeout.
func TestIdleHTTPConnectionIsClosed(t *testing.T) {
	t.Parallel()
	limits := server.DefaultLimits()
	limits.HTTPIdleTimeout = 500 * time.Millisecond
	_, wsURL := startEngine(t, Options{ServerLimits: limits})
	nc, err := net.Dial("tcp", strings.TrimPrefix(wsURL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write([]byte("GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// kept alive after the answer; then, idle, closed by the server
	start := time.Now()
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle keep-alive connection: read %v after %s, want the server to close it (EOF) within 5 s", err, time.Since(start).Round(time.Millisecond))
	}
	t.Logf("idle connection closed after %s", time.Since(start).Round(time.Millisecond))
}

// A zero-length dtp.db (a restore copy that failed) stops the start, named,
// and is left as it is; it is not given a fresh schema.
func TestEmptyDatabaseFileStopsTheStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := DatabasePath(dir)
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	eng, err := Open(Options{DataDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil {
		eng.Close()
		t.Fatal("the server started on an empty database file")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is empty") || !strings.Contains(err.Error(), "restore a backup") {
		t.Errorf("refusal %q should name the file, that it is empty, and the fix", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("the empty file was changed: %v %v", fi, err)
	}
	// a start that creates the file itself starts
	_, url := startEngine(t, Options{DataDir: t.TempDir()})
	if c := dialRaw(t, url); c.count(nostr.Filter{}) != 0 {
		t.Error("a new database holds events")
	}
}

// An event dated more than 15 minutes ahead is refused on push, so it
// cannot take its slot from the author's honest later edit.
func TestFutureEventIsRefusedOnPush(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	now := time.Now().Unix()
	for _, ahead := range []int64{3600, 10 * 365 * 86400, 15*60 + 30} {
		if ok, msg := c.push(alice.Trust(fixture.P(bob.Pubkey), "-1", now+ahead)); ok || msg != "invalid: created_at is more than 15 minutes in the future" {
			t.Errorf("event %d s ahead: ok=%v %q, want refused as too far in the future", ahead, ok, msg)
		}
	}
	// within the allowance (a client's clock a little ahead) it is kept
	if ok, msg := c.push(alice.Trust(fixture.P(bob.Pubkey), "0", now+60)); !ok || msg != "" {
		t.Errorf("event 60 s ahead: ok=%v %q, want stored", ok, msg)
	}
	// and the author's later edit wins the slot
	if ok, msg := c.push(alice.Trust(fixture.P(bob.Pubkey), "1", now+120)); !ok || msg != "" {
		t.Errorf("the later edit: ok=%v %q, want stored", ok, msg)
	}
}

// A relay's future-dated event is refused on sync, counted and shown, never
// moves the cursor, and is fetched again (and kept) once its time has come.
func TestFutureEventFromARelayIsFetchedAgainOnceItsTimeHasCome(t *testing.T) {
	t.Parallel()
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	now := time.Now().Unix()
	// 20 s past the allowance: a loaded machine took more than 3 s to the
	// pass, by which time the event was within it
	ahead := root.Trust(fixture.P(alice.Pubkey), "1", now+15*60+20)
	remote := faultrelay.StartForTest(t, faultrelay.Mode{}, ahead)
	eng := openFollowing(t, root.Pubkey, remote.URL)

	syncPasses(t, eng, 1)
	if slices.Contains(storedIDs(t, eng), ahead.ID) {
		t.Fatal("a relay's event dated 15 min 20 s ahead was stored")
	}
	st := eng.Status().Ingest
	i := slices.IndexFunc(st.RecentRejections, func(r status.Rejection) bool { return r.EventID == ahead.ID })
	if st.Rejected != 1 || i < 0 || st.RecentRejections[i].Source != "sync:"+remote.URL ||
		st.RecentRejections[i].Reason != "invalid: created_at is more than 15 minutes in the future" {
		t.Fatalf("ingest status %+v: want the refusal counted and shown with its relay and rule", st)
	}
	cs, err := eng.store.Cursors(remote.URL, "trust", []string{root.Pubkey})
	if err != nil {
		t.Fatal(err)
	}
	if c := cs[root.Pubkey]; c.LastSeenCreatedAt > time.Now().Unix() {
		t.Fatalf("cursor moved to %d, past now (%d)", c.LastSeenCreatedAt, time.Now().Unix())
	}

	time.Sleep(time.Until(time.Unix(now+21, 0))) // its time has come: 15 min ahead at most
	syncPasses(t, eng, 1)
	if !slices.Contains(storedIDs(t, eng), ahead.ID) {
		t.Fatal("the event was not fetched again once it was within 15 minutes")
	}
}

// NIP-40: an expired event is refused; a stored one stops being served (REQ
// and COUNT) once its expiration passes; NIP-11 lists NIP-40.
func TestExpiredEventsAreRefusedAndStopBeingServed(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	now := time.Now().Unix()
	expiring := func(subject string, at int64) *nostr.Event {
		ev := alice.Trust(fixture.XUser(subject), "1", now-10)
		ev.Tags = append(ev.Tags, nostr.Tag{"expiration", fmt.Sprint(at)})
		return alice.Sign(ev)
	}
	if ok, msg := c.push(expiring("1", now-1)); ok || msg != "invalid: event has expired" {
		t.Errorf("expired event: ok=%v %q, want refused as expired", ok, msg)
	}
	if ok, msg := c.push(expiring("2", 1<<53)); ok || !strings.HasPrefix(msg, "invalid: expiration tag") {
		t.Errorf("expiration past the safe range: ok=%v %q, want refused naming the tag", ok, msg)
	}
	soon := expiring("3", now+2)
	lasting := alice.Trust(fixture.P(bob.Pubkey), "1", now-10)
	for _, ev := range []*nostr.Event{soon, lasting} {
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("event not expired yet refused: %q", msg)
		}
	}
	all := nostr.Filter{Authors: []string{alice.Pubkey}}
	if got := c.req(all); len(got) != 2 || c.count(all) != 2 {
		t.Fatalf("before expiry: REQ %d events, want 2", len(got))
	}
	time.Sleep(time.Until(time.Unix(now+3, 0)))
	if got := c.req(all); len(got) != 1 || got[0].ID != lasting.ID {
		t.Errorf("after expiry: REQ served %s, want only the lasting event", ids(got))
	}
	if n := c.count(all); n != 1 {
		t.Errorf("after expiry: COUNT %d, want 1", n)
	}
	if n := c.count(all, nostr.Filter{IDs: []string{soon.ID}}); n != 1 {
		t.Errorf("after expiry: COUNT of two filters %d, want 1", n)
	}
	_, body := httpGet(t, "http"+strings.TrimPrefix(url, "ws")+"/", "Accept", "application/nostr+json")
	var info struct {
		SupportedNIPs []int `json:"supported_nips"`
	}
	if json.Unmarshal([]byte(body), &info) != nil || !slices.Contains(info.SupportedNIPs, 40) {
		t.Errorf("NIP-11 %s does not list NIP-40", body)
	}
}

// An event's tags together are capped in bytes, whatever the kind allows:
// an unknown tag may not carry what content may not.
func TestTagBytesAreCapped(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	c := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	ev := alice.Trust(fixture.P(bob.Pubkey), "1", t0)
	ev.Tags = append(ev.Tags, nostr.Tag{"padding", strings.Repeat("x", 100_000)})
	ok, msg := c.push(alice.Sign(ev))
	want := fmt.Sprintf("invalid: tags of %d bytes exceed the limit of %d bytes", tagBytesOf(ev), server.DefaultLimits().MaxTagBytes)
	if ok || msg != want {
		t.Errorf("100 kB unknown tag: ok=%v %q, want %q", ok, msg, want)
	}
}

func tagBytesOf(ev *nostr.Event) int {
	n := 0
	for _, tag := range ev.Tags {
		for _, v := range tag {
			n += len(v)
		}
	}
	return n
}
