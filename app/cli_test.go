package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine"
	"dtp-personal/engine/fixture"
	"dtp-personal/engine/store"
	"dtp-personal/engine/testrelay"
	"dtp-personal/ui/names"
	"dtp-personal/ui/words"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dtp-personal-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "dtp-personal")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build dtp-personal: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cliRun runs one CLI command and returns its stdout.
func cliRun(t testing.TB, data string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--data", data}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, stderr.String())
	}
	return string(out), nil
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// server is a headless dtp-personal process.
type server struct {
	cmd    *exec.Cmd
	addr   string
	stderr *strings.Builder
	mu     *sync.Mutex
}

func startServer(t testing.TB, data string) *server {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(binary, "serve", "--headless", "--data", data, "--listen", addr)
	s := &server{cmd: cmd, addr: addr, stderr: &strings.Builder{}, mu: &sync.Mutex{}}
	cmd.Stderr = lockedWriter{s.mu, s.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		// ready when it accepts connections and CLI commands can find it
		// (running.json is written just after the listen)
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			if _, found := engine.FindRunning(data); found {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not listen on %s: %s", addr, s.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestServeHeadlessStopsCleanlyOnSIGTERM(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, data)
	if _, ok := engine.FindRunning(data); !ok {
		t.Fatal("a running server is not discoverable on its data directory")
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, s.log())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop within 10 s of SIGTERM")
	}
	if !strings.Contains(s.log(), "stopped cleanly") {
		t.Errorf("no clean-stop log line:\n%s", s.log())
	}
	if _, ok := engine.FindRunning(data); ok {
		t.Error("data directory still looks held after a clean stop")
	}
}

// TestKillDuringPushLosesNoAcknowledgedEvent pushes signed events as fast as
// the server takes them, SIGKILLs the process mid-stream, and checks that
// every event answered `OK true` is in the database after the crash, and that
// the database is intact.
// pushingServer starts a server on data and pushes total trust events to it
// on a WebSocket without waiting; the caller reads the OKs within ctx.
func pushingServer(t *testing.T, data string, total int) (*server, *websocket.Conn, context.Context) {
	t.Helper()
	s := startServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	ws, _, err := websocket.Dial(ctx, "ws://"+s.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	author := fixture.NewAuthor(1)
	go func() {
		for i := range total {
			ev := author.Trust(fixture.P(fixture.NewAuthor(1000+i).Pubkey), "1", 1700000000)
			b, _ := json.Marshal([]any{"EVENT", ev})
			if ws.Write(ctx, websocket.MessageText, b) != nil {
				return
			}
		}
	}()
	return s, ws, ctx
}

func TestKillDuringPushLosesNoAcknowledgedEvent(t *testing.T) {
	data := t.TempDir()
	const total = 6000
	s, ws, ctx := pushingServer(t, data, total)
	var acked []string
	killed := false
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			break // the process is gone
		}
		var msg []any
		if json.Unmarshal(data, &msg) != nil || len(msg) != 4 || msg[0] != "OK" {
			continue
		}
		if msg[2] == true {
			acked = append(acked, msg[1].(string))
		} else {
			t.Fatalf("valid event refused: %v", msg[3])
		}
		if !killed && len(acked) >= 1500 {
			killed = true
			if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = s.cmd.Wait()
	if !killed {
		t.Fatalf("the server stopped before the kill, after %d OKs: %s", len(acked), s.log())
	}
	if len(acked) >= total {
		t.Fatal("every event was acknowledged before the kill landed: the test killed nothing mid-stream")
	}
	st, err := store.Open(engine.DatabasePath(data))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(); err != nil || res != "ok" {
		t.Fatalf("integrity_check after SIGKILL: %q %v", res, err)
	}
	for _, id := range acked {
		if ok, err := st.Has(id); err != nil || !ok {
			t.Fatalf("event %s was acknowledged with OK true but is missing after the crash", id)
		}
	}
	t.Logf("%d events acknowledged before SIGKILL, all present", len(acked))
}

// TestKillDuringImportKeepsDatabaseIntact kills an offline import midway and
// checks the file is intact and a second import completes the set.
func TestKillDuringImportKeepsDatabaseIntact(t *testing.T) {
	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "events.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	author := fixture.NewAuthor(2)
	const total = 8000
	w := bufio.NewWriter(f)
	for i := range total {
		fmt.Fprintln(w, author.Trust(fixture.P(fixture.NewAuthor(5000+i).Pubkey), "1", 1700000000).String())
	}
	w.Flush()
	f.Close()

	cmd := exec.Command(binary, "--data", data, "import", file)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	st, err := store.Open(engine.DatabasePath(data))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := st.IntegrityCheck(); err != nil || res != "ok" {
		t.Fatalf("integrity_check after SIGKILL: %q %v", res, err)
	}
	before, _ := st.Count(context.Background(), nostr.Filter{})
	st.Close()
	if before >= total {
		t.Logf("import finished before the kill (%d events); integrity still checked", before)
	}

	out, err := cliRun(t, data, "import", file)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d stored, %d duplicates, 0 rejected of %d lines", total-int(before), before, total)
	if !strings.Contains(out, want) {
		t.Fatalf("second import printed %q, want %q", out, want)
	}
}

func TestSettingsCommandsReachARunningServer(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, data)
	root := fixture.NewAuthor(7)
	npub, _ := nip19.EncodePublicKey(root.Pubkey)
	for _, args := range [][]string{
		{"relays", "add", "ws://127.0.0.1:1"},
		{"roots", "add", npub},
		{"strategy", "frontier-continuous"},
		{"limits", "--max-depth", "3"},
	} {
		if out, err := cliRun(t, data, args...); err != nil {
			t.Fatalf("%v: %v (%s)", args, err, out)
		}
	}
	if _, err := cliRun(t, data, "relays", "add", "http://example.org"); err == nil {
		t.Error("an http:// relay URL was accepted")
	}
	if _, err := cliRun(t, data, "strategy", "bogus"); err == nil {
		t.Error("an unknown strategy was accepted")
	}
	type seen struct {
		Strategy string
		Relays   []struct{ URL string }
		Frontier struct{ Roots []string }
		Settings struct{ Limits struct{ MaxDepth int } }
	}
	awaitStatus(t, data, s, "the settings", func(st seen) bool {
		return st.Strategy == "frontier-continuous" && len(st.Relays) == 1 && st.Relays[0].URL == "ws://127.0.0.1:1" &&
			len(st.Frontier.Roots) == 1 && st.Frontier.Roots[0] == root.Pubkey && st.Settings.Limits.MaxDepth == 3
	})
}

// awaitStatus polls a running server's `status --json`, decoded into a T,
// until done accepts it; what names the awaited change in the failure.
func awaitStatus[T any](t *testing.T, data string, s *server, what string, done func(T) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := cliRun(t, data, "status", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var st T
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status --json is not JSON: %v\n%s", err, out)
		}
		if done(st) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("running server did not pick up %s within 5 s:\n%s\n%s", what, out, s.log())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestImportResolveExportOffline scripts the engine without a server: import
// goes through the pipeline (a bad line is refused with its rule), resolve
// answers from the rebuilt heap, export writes back what was kept.
func TestImportResolveExportOffline(t *testing.T) {
	data := t.TempDir()
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	kept := []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", 1700000000),
		alice.Trust(fixture.XUser("5"), "-1", 1700000000, fixture.Scopes("x.com")),
	}
	forged := alice.Trust(fixture.XUser("6"), "1", 1700000000)
	forged.Sig = strings.Repeat("0", 128)
	file := filepath.Join(t.TempDir(), "in.jsonl")
	lines := kept[0].String() + "\n" + kept[1].String() + "\n" + forged.String() + "\nnot json\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := cliRun(t, data, "roots", "add", root.Pubkey); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--data", data, "import", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("import: %v %s", err, stderr.String())
	}
	if string(out) != "2 stored, 0 duplicates, 2 rejected of 4 lines\nrefused: 1 × invalid: bad signature; 1 × invalid: line N is not a JSON event\n" {
		t.Fatalf("import printed %q", out)
	}
	if !strings.Contains(stderr.String(), "rejected: invalid: bad signature") || !strings.Contains(stderr.String(), "rejected: invalid: line 4 is not a JSON event") {
		t.Fatalf("import did not name the rules that refused lines:\n%s", stderr.String())
	}

	out2, err := cliRun(t, data, "resolve", "user:id:5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Verdict  string
		Evidence []struct{ Author string }
		Paths    [][]string
	}
	if err := json.Unmarshal([]byte(out2), &ans); err != nil {
		t.Fatalf("resolve --json: %v\n%s", err, out2)
	}
	if ans.Verdict != "distrusted" || len(ans.Evidence) != 1 || ans.Evidence[0].Author != alice.Pubkey || len(ans.Paths) != 1 {
		t.Fatalf("resolve: %s", out2)
	}
	// a question's own band (issue 18): alice speaks at degree 2, beyond max degree 1
	if out, err := cliRun(t, data, "resolve", "user:id:5", "--max-degree", "1", "--red", "10"); err != nil ||
		!strings.Contains(out, "verdict    none\n") || !strings.Contains(out, "band       max degree 1, trusted from 75%, distrusted below 10%") {
		t.Fatalf("resolve --max-degree 1 --red 10: %v\n%s", err, out)
	}
	// in the window's words (issue 31), people by short npub while no name is known
	if out, err := cliRun(t, data, "resolve", "user:id:5"); err != nil ||
		!strings.Contains(out, "verdict    distrusted at degree 2: 0 trust, 1 distrust, 0 neutral (0% trust)") ||
		!strings.Contains(out, "why        "+words.ShortKey(alice.Pubkey)+", whom you trust, distrusts this account\n") ||
		!strings.Contains(out, "  -1 by "+words.ShortKey(alice.Pubkey)+", 1 hop from you (global) ") ||
		!strings.Contains(out, "path       you → "+words.ShortKey(alice.Pubkey)+" distrusts user:id:5\n") {
		t.Fatalf("resolve: %v\n%s", err, out)
	}
	if out, err := cliRun(t, data, "resolve", "user:id:5", "--follow-threshold", "101"); err == nil || !strings.Contains(err.Error(), "followThreshold must be from 0 to 100") {
		t.Fatalf("resolve --follow-threshold 101: %v\n%s", err, out)
	}

	// resolve names an author the display cache knows (the window's names.db,
	// filled here as the window fills it: alice's profile fetched from a relay)
	profile := alice.Sign(&nostr.Event{Kind: 0, CreatedAt: 1700000000, Content: `{"display_name":"Alice"}`, Tags: nostr.Tags{}})
	cache, err := names.Open(filepath.Join(data, names.FileName), 0)
	if err != nil {
		t.Fatal(err)
	}
	found, err := cache.Refresh(context.Background(), []string{testrelay.Start(t, profile)}, []string{alice.Pubkey}, 5*time.Second)
	cache.Close()
	if err != nil || found != 1 {
		t.Fatalf("names cache: %d found, %v", found, err)
	}
	if out, err := cliRun(t, data, "resolve", "user:id:5"); err != nil || !strings.Contains(out, "  -1 by Alice, 1 hop from you") ||
		!strings.Contains(out, "why        Alice, whom you trust, distrusts this account\n") {
		t.Fatalf("resolve with alice's name known: %v\n%s", err, out)
	}

	exported, err := cliRun(t, data, "export", "--kinds", "32009")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(exported), "\n")
	if len(got) != 2 {
		t.Fatalf("export wrote %d lines, want 2:\n%s", len(got), exported)
	}
	for _, line := range got {
		var ev nostr.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil || !ev.CheckID() || (ev.ID != kept[0].ID && ev.ID != kept[1].ID) {
			t.Fatalf("exported line is not one of the kept events: %s", line)
		}
	}
}

// In the C locale of servers and containers (LANG=C.UTF-8) a command prints
// only its own output: Fyne logged "Error parsing user locale C" to stderr on
// every command, GUI or not.
func TestCLocaleIsQuiet(t *testing.T) {
	for _, env := range []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "LANG=en_US.UTF-8"} {
		cmd := exec.Command(binary, "--data", t.TempDir(), "strategy")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), env}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v: %s", env, err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("%s: stderr %q", env, stderr.String())
		}
	}
}
