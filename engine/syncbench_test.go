package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// The sync benchmarks (BenchmarkPullThroughput, BenchmarkRefresh) pull from
// a relay in a second process: our own server (this test binary, started
// again as TestBenchRelayProcess), and strfry too when its binary is found
// (DTP_BENCH_STRFRY, else /work/strfry/strfry or strfry on PATH). The web
// they pull is the 100,000-event pull fixture, or with DTP_BENCH_AUTHORS=N
// fixture.ScaleWeb(N, seed 1): about 12 events per author, 1.2 million at
// 100,000, the web `dtp-personal bench` syncs (and the same cache file).
// Webs of that size are signed once and kept, with the relay's seeded
// database, in DTP_BENCH_CACHE (default: the user's cache directory).
// DTP_BENCH_LOG=1 shows the client engine's log on stderr; DTP_BENCH_PROFILES=DIR
// writes a CPU profile of each timed pass there; DTP_BENCH_RELAYS=dtp,strfry
// picks the relays measured.
const (
	benchRelayEnv   = "DTP_BENCH_RELAY_DIR"
	benchAuthorsEnv = "DTP_BENCH_AUTHORS"
	benchCacheEnv   = "DTP_BENCH_CACHE"
	benchStrfryEnv  = "DTP_BENCH_STRFRY"
	benchPagedEnv   = "DTP_BENCH_RELAY_PAGED" // the relay process refuses NIP-77
)

// TestBenchRelayProcess is not a test: it is the relay process of the sync
// benchmarks, serving the data directory named by DTP_BENCH_RELAY_DIR until
// its standard input closes. Without that variable it is skipped.
func TestBenchRelayProcess(t *testing.T) {
	dir := os.Getenv(benchRelayEnv)
	if dir == "" {
		t.Skip("the sync benchmarks start it as their relay process")
	}
	opts := Options{DataDir: dir, Listen: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if os.Getenv(benchPagedEnv) != "" {
		opts.ServerLimits = server.DefaultLimits()
		opts.ServerLimits.MaxNegSessions = 0
	}
	eng, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- eng.Serve(ctx) }()
	for eng.ListenAddr() == "" {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("relay ws://%s\n", eng.ListenAddr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	if err := <-served; err != nil {
		t.Error(err)
	}
	if err := eng.Close(); err != nil {
		t.Error(err)
	}
}

// benchWeb is what a sync benchmark pulls, and the client's caps that keep
// all of it in the frontier.
type benchWeb struct {
	name   string // "pull-fixture" or the ScaleWeb's cache name
	root   string
	events []*nostr.Event
	limits settings.Limits
	cached bool                       // kept in the benchmark cache (a ScaleWeb)
	author func(i int) fixture.Author // the i-th of some frontier authors, for new events
	wanted int                        // events a first sync stores: all but the claims nobody asks for
}

func loadBenchWeb(b *testing.B) benchWeb {
	b.Helper()
	n, _ := strconv.Atoi(os.Getenv(benchAuthorsEnv))
	if n <= 0 {
		root, evs := pullFixture()
		// the fixture's authors write about 60 events each, so the total
		// author cap is lowered to its size: the per-author cap (maxEvents /
		// maxTotalAuthors) then keeps every event
		limits := settings.DefaultLimits()
		limits.MaxTotalAuthors = 2000
		depth1 := func(i int) fixture.Author { return fixture.NewAuthor(1 + i%40) }
		return benchWeb{name: "pull-fixture", root: root.Pubkey, events: evs, limits: limits, author: depth1, wanted: len(evs)}
	}
	scale := fixture.NewScaleWeb(n, 1)
	web := benchWeb{name: strings.TrimSuffix(scale.CacheName(), ".jsonl"), root: scale.Pubkey(0), cached: true,
		author: func(i int) fixture.Author { return scale.Author(i % n) }}
	path := filepath.Join(benchCacheDir(b), scale.CacheName())
	evs, err := readJSONL(path)
	if err != nil {
		start := time.Now()
		if err := writeScaleWeb(path, scale); err != nil {
			b.Fatal(err)
		}
		if evs, err = readJSONL(path); err != nil {
			b.Fatal(err)
		}
		b.Logf("signed %d events for %d authors in %s", len(evs), n, time.Since(start).Round(time.Second))
	}
	web.events, web.wanted = evs, wantedOf(evs)
	limits := settings.DefaultLimits()
	limits.MaxAuthorsPerLevel, limits.MaxTotalAuthors = n, n
	// a per-author cap (maxEvents / maxTotalAuthors) above any author's statements
	limits.MaxEvents, limits.MaxRatingEvents, limits.MaxDiscoveryEvents = fixture.ScaleWebMaxStatements*n, 10*n, 10*n
	web.limits = limits
	return web
}

// wantedOf counts what a first sync of a ScaleWeb stores: every event
// but the 10011 claims of authors whom no statement names as a hint (the
// frontier asks only for the claims that can bind an X account).
func wantedOf(evs []*nostr.Event) int {
	hinted := map[string]bool{}
	for _, ev := range evs {
		if t := ev.Tags.Find("i"); ev.Kind == validation.KindTrust && len(t) > 2 {
			if pk, err := validation.DecodeNpub(t[2]); err == nil {
				hinted[pk] = true
			}
		}
	}
	n := 0
	for _, ev := range evs {
		if ev.Kind != validation.KindClaims || hinted[ev.PubKey] {
			n++
		}
	}
	return n
}

func benchCacheDir(b *testing.B) string {
	dir := os.Getenv(benchCacheEnv)
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			b.Fatal(err)
		}
		dir = filepath.Join(base, "dtp-personal", "bench") // `dtp-personal bench`'s
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	return dir
}

func readJSONL(path string) ([]*nostr.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var evs []*nostr.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		ev := new(nostr.Event)
		if err := json.Unmarshal(sc.Bytes(), ev); err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, sc.Err()
}

// writeScaleWeb writes web's JSONL to path, under its name only once complete.
func writeScaleWeb(path string, web *fixture.ScaleWeb) error {
	tmp := path + ".partial"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := web.WriteJSONL(f, nil); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeEvents writes evs to w as JSONL.
func writeEvents(w io.Writer, evs []*nostr.Event) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, ev := range evs {
		data, _ := json.Marshal(ev)
		bw.Write(data)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// relayDataDir is a new data directory whose store holds the web, copied
// from the cache for a ScaleWeb (seeded there once).
func relayDataDir(b *testing.B, web benchWeb) string {
	b.Helper()
	if !web.cached {
		return seededDataDir(b, web.events)
	}
	seed := filepath.Join(benchCacheDir(b), web.name+".relay")
	if _, err := os.Stat(filepath.Join(seed, "complete")); err != nil {
		if err := os.RemoveAll(seed); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(seed, 0o700); err != nil {
			b.Fatal(err)
		}
		// reopened every 100,000 events: closing checkpoints the WAL, which
		// a store written without pause lets grow to gigabytes
		for start := 0; start < len(web.events); start += 100_000 {
			st, err := store.Open(DatabasePath(seed))
			if err != nil {
				b.Fatal(err)
			}
			for i := start; i < min(start+100_000, len(web.events)); i += 1000 {
				if _, err := st.SaveBatch(web.events[i:min(i+1000, len(web.events))]); err != nil {
					b.Fatal(err)
				}
			}
			if err := st.Close(); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(seed, "complete"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		copyFile(b, DatabasePath(seed)+suffix, DatabasePath(dir)+suffix)
	}
	return dir
}

// benchRelay is a relay process on loopback.
type benchRelay struct {
	kind string // "dtp" or "strfry"
	url  string
	cmd  *exec.Cmd
}

// cpu is the CPU time the relay process used so far (Linux /proc; 0 elsewhere).
func (r *benchRelay) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// startOurRelay serves dataDir from a second process of this test binary.
func startOurRelay(b *testing.B, dataDir string) *benchRelay {
	return startRelayProcess(b, "dtp", benchRelayEnv+"="+dataDir)
}

// startOurPagedRelay is startOurRelay refusing NIP-77, as relays without it.
func startOurPagedRelay(b *testing.B, dataDir string) *benchRelay {
	return startRelayProcess(b, "dtp-paged", benchRelayEnv+"="+dataDir, benchPagedEnv+"=1")
}

func startRelayProcess(b *testing.B, kind string, env ...string) *benchRelay {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchRelayProcess$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "relay "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return &benchRelay{kind: kind, url: url, cmd: cmd}
		}
	}
	b.Fatalf("the relay process did not start: %v", sc.Err())
	return nil
}

// strfryBinary is the strfry to measure against, "" when there is none.
func strfryBinary() string {
	if p := os.Getenv(benchStrfryEnv); p != "" {
		return p
	}
	if _, err := os.Stat("/work/strfry/strfry"); err == nil {
		return "/work/strfry/strfry"
	}
	p, _ := exec.LookPath("strfry")
	return p
}

// strfryConfig writes a strfry configuration for a database in dir,
// listening on a free loopback port, and returns its path and the port.
func strfryConfig(b *testing.B, dir string) (path string, port int) {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if path, err = fixture.StrfryConf(dir, port); err != nil {
		b.Fatal(err)
	}
	return path, port
}

// startStrfry serves a strfry database holding web; nil when no strfry
// binary is found.
func startStrfry(b *testing.B, web benchWeb) *benchRelay {
	b.Helper()
	bin := strfryBinary()
	if bin == "" {
		b.Log("no strfry binary (DTP_BENCH_STRFRY, /work/strfry/strfry, PATH): measured against our own server only")
		return nil
	}
	conf, port := strfryHolding(b, bin, web)
	cmd := exec.Command(bin, "--config="+conf, "relay")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("strfry did not start listening")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return &benchRelay{kind: "strfry", url: "ws://" + addr, cmd: cmd}
}

// strfryHolding is the configuration of a new strfry database holding web:
// imported, or for a ScaleWeb copied from the cache (imported there once).
func strfryHolding(b *testing.B, bin string, web benchWeb) (conf string, port int) {
	b.Helper()
	dir := b.TempDir()
	conf, port = strfryConfig(b, dir)
	if !web.cached {
		importStrfry(b, bin, conf, web.events)
		return conf, port
	}
	seed := filepath.Join(benchCacheDir(b), web.name+".strfry")
	if _, err := os.Stat(filepath.Join(seed, "complete")); err != nil {
		if err := os.RemoveAll(seed); err != nil {
			b.Fatal(err)
		}
		seedConf, _ := strfryConfig(b, seed)
		importStrfry(b, bin, seedConf, web.events)
		if err := os.WriteFile(filepath.Join(seed, "complete"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	copyFile(b, filepath.Join(seed, "db", "data.mdb"), filepath.Join(dir, "db", "data.mdb"))
	return conf, port
}

// importStrfry adds evs to the strfry database of conf.
func importStrfry(b *testing.B, bin, conf string, evs []*nostr.Event) {
	b.Helper()
	r, w := io.Pipe()
	go func() { w.CloseWithError(writeEvents(w, evs)) }()
	if err := fixture.StrfryImport(context.Background(), bin, conf, r); err != nil {
		b.Fatal(err)
	}
}

// benchRelays are the relays a sync benchmark measures against: our own
// server in a second process, and strfry when found; both hold the web.
func benchRelays(b *testing.B, web benchWeb) []*benchRelay {
	var relays []*benchRelay
	if benchKind("dtp") {
		relays = append(relays, startOurRelay(b, relayDataDir(b, web)))
	}
	if benchKind("strfry") {
		if s := startStrfry(b, web); s != nil {
			relays = append(relays, s)
		}
	}
	return relays
}

// benchKind reports whether relays of kind are measured: all unless
// DTP_BENCH_RELAYS lists some ("dtp,strfry"; BenchmarkRefresh also knows
// "dtp-paged", our server refusing NIP-77).
func benchKind(kind string) bool {
	list := os.Getenv("DTP_BENCH_RELAYS")
	return list == "" || slices.Contains(strings.Split(list, ","), kind)
}

// openSyncClient opens an engine that syncs web from the relay at url.
func openSyncClient(b *testing.B, dataDir string, web benchWeb, url string) *Engine {
	b.Helper()
	logTo := io.Discard
	if os.Getenv("DTP_BENCH_LOG") != "" {
		logTo = os.Stderr
	}
	eng, err := Open(Options{DataDir: dataDir, Logger: slog.New(slog.NewTextHandler(logTo, nil))})
	if err != nil {
		b.Fatal(err)
	}
	for _, err := range []error{eng.Modify(settings.SetLimits(web.limits)), eng.Modify(settings.AddRoot(web.root)), eng.Modify(settings.AddRelay(url))} {
		if err != nil {
			b.Fatal(err)
		}
	}
	return eng
}

// copyFile copies from to to; a missing from copies nothing.
func copyFile(b *testing.B, from, to string) {
	b.Helper()
	src, err := os.Open(from)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}

// profilePass starts a CPU profile of the pass named what when
// DTP_BENCH_PROFILES names a directory; stop ends it.
func profilePass(b *testing.B, what string) (stop func()) {
	dir := os.Getenv("DTP_BENCH_PROFILES")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, strings.NewReplacer(" ", "-", "%", "pc").Replace(what)+".prof"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Logf("no profile of %s: %v", what, err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
