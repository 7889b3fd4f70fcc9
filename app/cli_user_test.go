package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine"
	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// cliResult is one CLI run as a person sees it: both streams and the exit code.
type cliResult struct {
	stdout, stderr string
	code           int
}

func cliRunAll(t *testing.T, data string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--data", data}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return cliResult{stdout.String(), stderr.String(), code}
}

func TestVersionAndHelpFlags(t *testing.T) {
	data := t.TempDir()
	long, short := cliRunAll(t, data, "--version"), cliRunAll(t, data, "version")
	if long.code != 0 || !strings.HasPrefix(long.stdout, "dtp-personal ") || long.stdout != short.stdout {
		t.Errorf("--version %+v, version %+v: want the same dtp-personal … line, exit 0", long, short)
	}
	h, help := cliRunAll(t, data, "-h"), cliRunAll(t, data, "--help")
	if h.code != 0 || !strings.Contains(h.stdout, "Usage:") || h.stdout != help.stdout {
		t.Errorf("-h %+v differs from --help %+v", h, help)
	}
}

func TestUnknownCommandIsOneLineWithASuggestion(t *testing.T) {
	data := t.TempDir()
	r := cliRunAll(t, data, "stauts")
	if r.code != 2 || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, `did you mean "status"`) || !strings.Contains(r.stderr, "see dtp-personal --help") {
		t.Errorf("stauts: exit %d, stderr %q: want one line with a suggestion and --help, exit 2", r.code, r.stderr)
	}
	r = cliRunAll(t, data, "frobnicate")
	if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("frobnicate: exit %d, stderr %q: want one line without a suggestion, exit 2", r.code, r.stderr)
	}
	if got := nearestCommand("rel"); got != "relays" {
		t.Errorf("nearestCommand(rel) = %q, want relays (a prefix)", got)
	}
}

func TestExtraArgumentsAreRefused(t *testing.T) {
	data := t.TempDir()
	r := cliRunAll(t, data, "relays", "add", "wss://relay", "example.com")
	if r.code != 2 || !strings.Contains(r.stderr, `"example.com" left over`) {
		t.Errorf("unquoted relay URL with a space: exit %d, stderr %q", r.code, r.stderr)
	}
	if list := cliRunAll(t, data, "relays", "list", "--json"); strings.TrimSpace(list.stdout) != "[]" {
		t.Errorf("the refused command still added a relay: %s", list.stdout)
	}
	for _, args := range [][]string{{"status", "now"}, {"backup", "a", "b"}, {"resolve", "x", "y"}, {"version", "1"}} {
		if r := cliRunAll(t, data, args...); r.code != 2 || !strings.Contains(r.stderr, "left over") {
			t.Errorf("%v: exit %d, stderr %q, want the extra argument refused", args, r.code, r.stderr)
		}
	}
}

func TestListEditsSayWhatHappened(t *testing.T) {
	data := t.TempDir()
	for _, list := range []string{"relays", "roots"} {
		r := cliRunAll(t, data, list, "list")
		if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, list+" add") {
			t.Errorf("empty %s list: %+v, want nothing on stdout and what to do next on stderr", list, r)
		}
	}
	cliRunAll(t, data, "relays", "add", "wss://relay.example.com")
	if r := cliRunAll(t, data, "relays", "add", "WSS://Relay.Example.com/"); r.code != 0 || !strings.Contains(r.stdout, "already there") {
		t.Errorf("adding a relay already there: %+v", r)
	}
	if r := cliRunAll(t, data, "relays", "remove", "wss://other.example.com"); r.code != 1 || !strings.Contains(r.stderr, "is not in relays") {
		t.Errorf("removing an absent relay: %+v, want exit 1", r)
	}
	if r := cliRunAll(t, data, "relays", "remove", "wss://relay.example.com"); r.code != 0 || !strings.Contains(r.stdout, "removed") {
		t.Errorf("removing a present relay: %+v", r)
	}

	root := fixture.NewAuthor(3)
	npub, _ := nip19.EncodePublicKey(root.Pubkey)
	if r := cliRunAll(t, data, "roots", "add", root.Pubkey); r.code != 0 || strings.TrimSpace(r.stdout) != "added "+npub {
		t.Errorf("roots add hex: %+v, want the npub confirmed", r)
	}
	if r := cliRunAll(t, data, "roots", "list"); strings.TrimSpace(r.stdout) != npub {
		t.Errorf("roots list printed %q, want %s", r.stdout, npub)
	}
	var hexes []string
	if err := json.Unmarshal([]byte(cliRunAll(t, data, "roots", "list", "--json").stdout), &hexes); err != nil || len(hexes) != 1 || hexes[0] != root.Pubkey {
		t.Errorf("roots list --json = %q, %v: want the hex key, as before", hexes, err)
	}
	if r := cliRunAll(t, data, "roots", "remove", fixture.NewAuthor(4).Pubkey); r.code != 1 {
		t.Errorf("removing an absent root: %+v, want exit 1", r)
	}
}

func TestSecretKeyIsRefusedWithAWarning(t *testing.T) {
	data := t.TempDir()
	nsec, _ := nip19.EncodePrivateKey(fixture.NewAuthor(5).Secret)
	r := cliRunAll(t, data, "roots", "add", nsec)
	if r.code != 1 || !strings.Contains(r.stderr, "secret key") || !strings.Contains(r.stderr, "never paste it") {
		t.Errorf("roots add nsec: %+v, want a secret-key warning, exit 1", r)
	}
	if strings.Contains(r.stderr, nsec) {
		t.Error("the warning repeats the secret key")
	}
	if list := cliRunAll(t, data, "roots", "list", "--json"); strings.TrimSpace(list.stdout) != "[]" {
		t.Errorf("a root was added from a secret key: %s", list.stdout)
	}
}

func TestStatusSaysWhetherAServerRuns(t *testing.T) {
	data := t.TempDir()
	var st struct {
		Running bool            `json:"running"`
		Server  json.RawMessage `json:"server"`
	}
	if err := json.Unmarshal([]byte(cliRunAll(t, data, "status", "--json").stdout), &st); err != nil || st.Running || st.Server != nil {
		t.Fatalf("status --json without a server: %+v, %v", st, err)
	}
	r := cliRunAll(t, data, "status")
	for _, want := range []string{"not running", "next: add your public key", "next: add a relay", "next: start the server"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status without a server or set-up lacks %q:\n%s", want, r.stdout)
		}
	}
	s := startServer(t, data)
	if err := json.Unmarshal([]byte(cliRunAll(t, data, "status", "--json").stdout), &st); err != nil || !st.Running ||
		!strings.Contains(string(st.Server), s.addr) || strings.Contains(string(st.Server), "token") {
		t.Errorf("status --json with a server: running %v, server %s, %v", st.Running, st.Server, err)
	}
	if r := cliRunAll(t, data, "status"); !strings.Contains(r.stdout, "running on "+s.addr) || strings.Contains(r.stdout, "start the server") {
		t.Errorf("status with a server:\n%s", r.stdout)
	}
}

// `status` says what the window says, from the same facts, also when it
// reads a running server's status (issue 31: it asked for a root while one
// existed, since a server's status JSON carries no settings lists, and
// printed the raw dial error).
func TestStatusSpeaksTheWindowsWords(t *testing.T) {
	data := t.TempDir()
	refused := freeAddr(t) // nobody listens
	for _, args := range [][]string{{"roots", "add", fixture.NewAuthor(1).Pubkey}, {"relays", "add", "ws://" + refused}} {
		if _, err := cliRun(t, data, args...); err != nil {
			t.Fatal(err)
		}
	}
	startServer(t, data)
	testutil.EventuallyWithin(t, 30*time.Second, "the first pass", func() bool {
		var st struct{ LastSync int64 }
		return json.Unmarshal([]byte(cliRunAll(t, data, "status", "--json").stdout), &st) == nil && st.LastSync != 0
	})
	out := cliRunAll(t, data, "status").stdout
	for _, want := range []string{
		"summary    1 person in your web of trust · 0 statements · partial · updated ",
		"  • relay ws://" + refused + ": unreachable: connection refused — retrying with the ",
		"  ws://" + refused + "  unreachable: connection refused — retrying with the ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for _, wrong := range []string{"next: add your public key", "next: add a relay", "dial tcp", "set-up"} {
		if strings.Contains(out, wrong) {
			t.Errorf("status says %q:\n%s", wrong, out)
		}
	}
}

// Every build says the release FyneApp.toml states (issue 31: a build
// without packaging's -ldflags, which is also what Fyne's packaging tool
// and a cross build make, said "devel").
func TestVersionIsFyneAppsVersion(t *testing.T) {
	toml, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*Version\s*=\s*"([^"]+)"`).FindSubmatch(toml)
	if m == nil {
		t.Fatal("FyneApp.toml states no Version")
	}
	if release != string(m[1]) {
		t.Errorf("the program's release is %q, FyneApp.toml's %q", release, m[1])
	}
	// the test binary is a plain go build, without packaging's -ldflags
	if out := cliRunAll(t, t.TempDir(), "version").stdout; !strings.HasPrefix(out, "dtp-personal "+string(m[1])+" ") {
		t.Errorf("version printed %q", out)
	}
}

// A setting a running server takes only at its start, changed beside it
// (here in its store, as the CLI's edits are), is named by `status` until
// the server starts again; before, only `status --json` carried it.
func TestStatusNamesWhatWaitsForARestart(t *testing.T) {
	data := t.TempDir()
	startServer(t, data)
	st, err := store.Open(engine.DatabasePath(data))
	if err != nil {
		t.Fatal(err)
	}
	err = settings.Modify(st, settings.SetListen(freeAddr(t), false))
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	const want = "restart    the listen address takes effect when dtp-personal starts again"
	testutil.EventuallyWithin(t, 15*time.Second, "status naming the listen address", func() bool {
		return strings.Contains(cliRunAll(t, data, "status").stdout, want)
	})
}

// COMMAND --help says what each of its flags sets; the limits' lines are
// the ones under the window's fields (issue 28: the help lived in a UI table
// the CLI could not show).
func TestCommandHelpNamesItsFlags(t *testing.T) {
	r := cliRunAll(t, t.TempDir(), "limits", "--help")
	for _, want := range []string{"dtp-personal limits [--preset small|normal|large] [--max-depth N", "Flags of limits:",
		"--preset", "small: max degree 3, a quarter of the default people, events and memory caps",
		"--max-depth", "hops from you that are followed (1 = only the people you trust) (maxDepth)",
		"--max-wal-mib", "write-ahead log"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("limits --help lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 || strings.Contains(r.stdout, "repo-sync") {
		t.Errorf("limits --help: exit %d, printed the whole usage or more:\n%s", r.code, r.stdout)
	}
}

// `limits --preset NAME` sets the caps the window's preset buttons fill in
// (settings.LimitPresets, one table); a flag beside it wins for its limit,
// and an unknown preset is refused by name.
func TestLimitsPreset(t *testing.T) {
	data := t.TempDir()
	r := cliRunAll(t, data, "limits", "--preset", "large", "--max-total-authors", "1234", "--json")
	var got settings.Limits
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("limits --preset large: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	want := settings.DefaultLimits()
	settings.LimitPresets[2].Apply(&want)
	want.MaxTotalAuthors = 1234
	if got != want {
		t.Errorf("limits after --preset large --max-total-authors 1234:\n got %+v\nwant %+v", got, want)
	}
	if r := cliRunAll(t, data, "limits", "--preset", "huge"); r.code == 0 || !strings.Contains(r.stderr, `no limits preset "huge" (small, normal, large)`) {
		t.Errorf("limits --preset huge: exit %d, %s", r.code, r.stderr)
	}
}
