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
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
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
