// Package scalebench is the scale benchmark behind `dtp-personal bench`
// (issue 26 §4): it generates a web of trust of W authors, serves it from a
// relay process on loopback (strfry when there is one, else a second
// dtp-personal server), and measures, each in a process of its own, the
// first sync, the push path's rate on a fresh server, a refresh with nothing
// new and one after 1 % of the authors published, the restart to the first
// answer and warm resolves.
package scalebench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine"
	"dtp-personal/engine/fixture"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
)

// Config is one benchmark run.
type Config struct {
	Binary   string // the dtp-personal executable measured
	Authors  int    // W
	Seed     int
	CacheDir string // generated webs are kept here by W and seed; "" = not kept
	WorkDir  string // parent of the run's temporary directory; "" = the system's
	Keep     bool   // leave the run's directory (data directories, logs) in place
	// Strfry is the strfry executable to serve the web; "" serves it from a
	// second dtp-personal process instead.
	Strfry string
	// Reference also times `strfry sync --dir down` (NIP-77) copying the
	// relay into an empty strfry, the rate the first sync is held to.
	Reference bool
	// Push also times a fresh server taking the web's events from clients,
	// the rate the first sync is held to on the same machine.
	Push     bool
	Resolves int       // warm RESOLVEs measured for p50/p99
	Log      io.Writer // progress lines
	// Rest, when not "", is a data directory a run kept (Keep: its sync
	// directory, the relay removed) for the web of Authors and Seed: only
	// the restart and the questions are timed on it, in a minute where a
	// whole run at 300,000 people takes half an hour.
	Rest string
}

// Result is every figure of a run; sizes in bytes, times in seconds.
type Result struct {
	Rest        string         `json:"rest,omitempty"` // Config.Rest: only the restart and the questions were timed
	Authors     int            `json:"authors"`
	Seed        int            `json:"seed"`
	Events      int            `json:"events"`
	Kinds       map[string]int `json:"eventsByKind"`
	Relay       string         `json:"relay"`
	WebSeconds  float64        `json:"webSeconds"`
	WebCached   bool           `json:"webCached"`
	WebFile     string         `json:"webFile"`
	LoadSeconds float64        `json:"relayLoadSeconds"`
	LoadWALPeak int64          `json:"relayLoadWALPeakBytes"` // our own relay's import; 0 for strfry

	FirstSync Phase `json:"firstSync"`
	NoChange  Phase `json:"refreshNoChange"`
	Change    Phase `json:"refreshChange"`
	Published int   `json:"changePublished"` // events published for the change refresh

	Frontier Frontier `json:"frontier"`

	Reference *Reference `json:"strfryReference,omitempty"`
	Push      *Push      `json:"push,omitempty"`

	DataDirBytes int64 `json:"dataDirBytes"`
	DatabaseSize int64 `json:"databaseBytes"`
	WALAtRest    int64 `json:"walBytesAtRest"`
	WALLimit     int64 `json:"walLimitBytes"` // the bound the syncing directory's setting gives

	RestartSeconds   float64 `json:"restartToFirstAnswerSeconds"`
	ListeningSeconds float64 `json:"restartToListeningSeconds"`
	// SettleSeconds is how long after its first answer the restarted
	// server's start work went on (settle); warm questions are timed after it
	SettleSeconds float64 `json:"settleSeconds"`
	FirstAnswer   string  `json:"firstAnswer"`
	Resolve       Latency `json:"resolve"`
	// ResolveAfterCommit is the first question after each of a run of
	// pushed statements, each a new hop of a different author.
	ResolveAfterCommit Latency `json:"resolveAfterCommit"`
	// ResolvePaced is questions sent at a steady pace, each timed from
	// when it was sent (pacedResolves); ResolveDuringPushes the same while
	// another connection pushes statements, commit after commit, as a
	// sync's commits go on beside a client's questions.
	ResolvePaced        Latency `json:"resolvePaced"`
	ResolveDuringPushes Latency `json:"resolveDuringPushes"`
	RestRSS             int64   `json:"serverRSSAtRest"`
	ServerPeakRSS       int64   `json:"serverPeakRSS"`
}

// Phase is one measured `sync --once` process.
type Phase struct {
	Seconds      float64 `json:"seconds"`
	Stored       int64   `json:"eventsStored"` // events the database gained
	EventsPerSec float64 `json:"eventsPerSecond"`
	WALPeak      int64   `json:"walPeakBytes"`
	RSSPeak      int64   `json:"rssPeakBytes"`
	Outcome      string  `json:"outcome"` // the command's last line: complete, partial: …
}

// Frontier is what the syncing data directory's status says after the
// first sync.
type Frontier struct {
	Size       int      `json:"size"`
	ByDepth    []int    `json:"byDepth"`
	Truncation []string `json:"truncation"`
	Coverage   string   `json:"coverage"`
	HeapNodes  int      `json:"heapNodes"`
	HeapEdges  int      `json:"heapEdges"`
	HeapLimit  string   `json:"heapLimit"`
}

// Reference is strfry copying the relay into an empty strfry.
type Reference struct {
	Seconds      float64 `json:"seconds"`
	Events       int64   `json:"events"`
	EventsPerSec float64 `json:"eventsPerSecond"`
	Ratio        float64 `json:"firstSyncRatio"` // our first sync's rate (events stored a second) ÷ strfry's
	// TimeRatio is strfry's time ÷ our first sync's, both copying the same
	// relay: our sync asks only for what the frontier needs (10011 claims
	// only of the people binding statements name: 19,339 of the 100,000 at
	// W = 100,000), so its stored rate counts fewer events than strfry's copy
	TimeRatio float64 `json:"firstSyncTimeRatio"`
	Again     float64 `json:"againSeconds"` // the same sync once more, nothing new
}

// Push is a fresh server taking the web's events over loopback WebSockets
// (pushWeb), timed from the first EVENT sent to the last OK.
type Push struct {
	Connections  int      `json:"connections"`
	Seconds      float64  `json:"seconds"`
	Events       int      `json:"events"`             // sent: the web's first, as many as the first sync stored
	Acked        int      `json:"eventsAcked"`        // answered OK true
	Refused      int      `json:"eventsRefused"`      // answered OK false
	Refusals     []string `json:"refusals,omitempty"` // the refusals' rules (ingest.RuleOf) with their counts
	Stored       int64    `json:"eventsStored"`       // what the database holds after
	EventsPerSec float64  `json:"eventsPerSecond"`    // stored ÷ seconds, as the first sync's
	WALPeak      int64    `json:"walPeakBytes"`
	RSSPeak      int64    `json:"rssPeakBytes"`         // the server process's
	Ratio        float64  `json:"firstSyncToPushRatio"` // our first sync's rate ÷ the push's
}

// Latency is the warm RESOLVE round trips.
type Latency struct {
	Count         int     `json:"count"`
	P50           float64 `json:"p50Millis"`
	P99           float64 `json:"p99Millis"`
	Max           float64 `json:"maxMillis"`
	ComputeMicros float64 `json:"meanComputeMicros"` // the server's own figure
	ComputeP99    float64 `json:"p99ComputeMicros"`
}

// trustKinds are the kinds the web is made of and the sync keeps.
var trustKinds = []int{validation.KindTrust, validation.KindRating, validation.KindClaims}

type run struct {
	cfg   Config
	dir   string
	start time.Time
	web   *fixture.ScaleWeb
	res   Result
}

// Run runs the benchmark and returns its figures.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Authors < 2 {
		return nil, errors.New("bench: a web needs at least 2 authors")
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	dir, err := os.MkdirTemp(cfg.WorkDir, "dtp-bench-")
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, dir: dir, start: time.Now()}
	if cfg.Keep {
		r.logf("working in %s (kept)", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	r.res.Authors, r.res.Seed, r.res.Rest = cfg.Authors, cfg.Seed, cfg.Rest
	if cfg.Rest != "" {
		r.deriveWeb()
		err = r.measureRest(ctx, cfg.Rest, "")
	} else {
		err = r.all(ctx)
	}
	return &r.res, err
}

// deriveWeb derives the keys of the web of Authors and Seed.
func (r *run) deriveWeb() {
	r.logf("deriving %d authors' keys", r.cfg.Authors)
	r.web = fixture.NewScaleWeb(r.cfg.Authors, r.cfg.Seed)
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Log, "[%7.1fs] %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

func (r *run) all(ctx context.Context) error {
	webFile, err := r.generate()
	if err != nil {
		return fmt.Errorf("generate the web: %w", err)
	}
	rl := r.newRelay()
	r.res.Relay = rl.name()
	r.logf("loading the web into %s", rl.name())
	t := time.Now()
	if r.res.LoadWALPeak, err = rl.load(ctx, webFile); err != nil {
		return fmt.Errorf("load the relay: %w", err)
	}
	r.res.LoadSeconds = time.Since(t).Seconds()
	url, err := rl.start(ctx)
	if err != nil {
		return fmt.Errorf("start the relay: %w", err)
	}
	defer rl.stop()
	r.logf("relay at %s (loaded in %.1f s)", url, r.res.LoadSeconds)

	data := filepath.Join(r.dir, "sync")
	if err := r.prepare(ctx, data, url); err != nil {
		return err
	}
	if r.res.FirstSync, err = r.syncOnce(ctx, data, "first sync"); err != nil {
		return err
	}
	if err := r.readFrontier(ctx, data); err != nil {
		return err
	}
	if sr, ok := rl.(*strfryRelay); ok && r.cfg.Reference {
		if r.res.Reference, err = sr.reference(ctx, r, url); err != nil {
			return fmt.Errorf("strfry reference: %w", err)
		}
		if r.res.Reference.EventsPerSec > 0 && r.res.FirstSync.Seconds > 0 {
			r.res.Reference.Ratio = r.res.FirstSync.EventsPerSec / r.res.Reference.EventsPerSec
			r.res.Reference.TimeRatio = r.res.Reference.Seconds / r.res.FirstSync.Seconds
		}
	}
	if r.cfg.Push {
		if r.res.Push, err = r.pushWeb(ctx, webFile); err != nil {
			return err
		}
	}
	if r.res.NoChange, err = r.syncOnce(ctx, data, "refresh, nothing new"); err != nil {
		return err
	}
	changes := filepath.Join(r.dir, "change.jsonl")
	if r.res.Published, err = r.writeChanges(changes); err != nil {
		return err
	}
	if err := rl.publish(ctx, changes); err != nil {
		return fmt.Errorf("publish the change: %w", err)
	}
	r.logf("published %d new statements on the relay", r.res.Published)
	if r.res.Change, err = r.syncOnce(ctx, data, "refresh, 1 % changed"); err != nil {
		return err
	}
	rl.stop()

	if err := r.measureRest(ctx, data, url); err != nil {
		return err
	}
	r.logf("done")
	return nil
}

// generate writes the web's JSONL, or finds it in the cache.
func (r *run) generate() (string, error) {
	t := time.Now()
	r.deriveWeb()
	name := r.web.CacheName()
	dir := r.cfg.CacheDir
	if dir == "" {
		dir = r.dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if kinds, n, err := countKinds(path); err == nil && n > 0 {
		r.res.Events, r.res.Kinds, r.res.WebCached, r.res.WebFile = n, kinds, true, path
		r.res.WebSeconds = time.Since(t).Seconds()
		r.logf("web of %d events from the cache: %s", n, path)
		return path, nil
	}
	r.logf("signing the web (all CPUs)")
	tmp := path + ".partial" // until complete: a cut-short web is never taken from the cache
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp) // nothing left to remove once renamed
	step := max(r.cfg.Authors/10, 1)
	_, err = r.web.WriteJSONL(f, func(done int) {
		if done%step < 2048 || done == r.cfg.Authors {
			r.logf("  %d/%d authors signed", done, r.cfg.Authors)
		}
	})
	if err = errors.Join(err, f.Close()); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	r.res.Kinds, r.res.Events, err = countKinds(path)
	r.res.WebSeconds, r.res.WebFile = time.Since(t).Seconds(), path
	return path, err
}

// countKinds counts a JSONL file's events by kind, reading only each line's
// "kind" field.
func countKinds(path string) (map[string]int, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	kinds := map[string]int{}
	n := 0
	for line := range bytes.Lines(b) {
		i := bytes.Index(line, []byte(`"kind":`))
		if i < 0 {
			return nil, 0, fmt.Errorf("%s: line %d has no kind", path, n+1)
		}
		rest := line[i+len(`"kind":`):]
		end := bytes.IndexAny(rest, ",}")
		if end < 0 {
			return nil, 0, fmt.Errorf("%s: line %d is cut", path, n+1)
		}
		kinds[string(rest[:end])]++
		n++
	}
	return kinds, n, nil
}

// writeChanges signs a new statement for every hundredth author (at least
// one), dated now.
func (r *run) writeChanges(path string) (int, error) {
	now := time.Now().Unix()
	var b []byte
	n := 0
	for i := 50 % r.cfg.Authors; i < r.cfg.Authors; i += 100 {
		ev := r.web.Change(i, now)
		b = append(append(b, ev.String()...), '\n')
		n++
	}
	return n, os.WriteFile(path, b, 0o644)
}

// commits are the statements pushed for ResolveAfterCommit: a new trust
// statement by every hundredth author from the 25th (not the change
// refresh's), at most 200, dated now.
func (r *run) commits() []*nostr.Event {
	now := time.Now().Unix()
	var evs []*nostr.Event
	for i := 25 % r.cfg.Authors; i < r.cfg.Authors && len(evs) < min(r.cfg.Resolves, 200); i += 100 {
		evs = append(evs, r.web.Change(i, now))
	}
	return evs
}

// prepare sets up a data directory: the web's root, caps raised so the whole
// web is in the frontier, and the relay at url unless it is "". A pass keeps
// at most maxEvents ÷ maxTotalAuthors trust statements of one author, so
// maxEvents leaves room for the web's busiest author.
func (r *run) prepare(ctx context.Context, data, url string) error {
	all := strconv.Itoa(max(r.res.Events, 1))
	w := strconv.Itoa(r.cfg.Authors)
	trust := strconv.Itoa(min(r.cfg.Authors*fixture.ScaleWebMaxStatements, math.MaxInt32))
	commands := [][]string{
		{"roots", "add", r.web.Pubkey(0)},
		{"limits", "--max-depth", "4", "--max-authors-per-level", w, "--max-total-authors", w,
			"--max-events", trust, "--max-rating-events", all, "--max-discovery-events", all},
	}
	if url != "" {
		commands = append(commands, []string{"relays", "add", url})
	}
	for _, args := range commands {
		if _, err := r.command(ctx, data, args...); err != nil {
			return err
		}
	}
	return nil
}

// command runs one dtp-personal command on data and returns its stdout.
func (r *run) command(ctx context.Context, data string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, r.cfg.Binary, append([]string{"--data", data}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("dtp-personal %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return string(out), nil
}

// syncOnce runs `sync --once` in a process of its own and measures it.
func (r *run) syncOnce(ctx context.Context, data, what string) (Phase, error) {
	before, err := countEvents(ctx, data)
	if err != nil {
		return Phase{}, err
	}
	r.logf("%s: sync --once", what)
	logPath := filepath.Join(r.dir, "sync-"+strings.NewReplacer(" ", "-", ",", "", "%", "").Replace(what)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return Phase{}, err
	}
	defer logFile.Close()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, r.cfg.Binary, "--data", data, "sync", "--once")
	cmd.Stdout, cmd.Stderr = &out, logFile
	t := time.Now()
	if err := cmd.Start(); err != nil {
		return Phase{}, err
	}
	s := sample(cmd.Process.Pid, walPath(data))
	waitErr := cmd.Wait()
	p := Phase{Seconds: time.Since(t).Seconds(), Outcome: strings.TrimSpace(out.String())}
	p.WALPeak, p.RSSPeak = s.stop()
	var ee *exec.ExitError
	if waitErr != nil && !(errors.As(waitErr, &ee) && ee.ExitCode() == 3) { // 3: partial, still measured
		tail, _ := os.ReadFile(logPath)
		return p, fmt.Errorf("%s: %v: %s", what, waitErr, lastLines(string(tail), 5))
	}
	after, err := countEvents(ctx, data)
	if err != nil {
		return p, err
	}
	p.Stored = after - before
	if p.Seconds > 0 {
		p.EventsPerSec = float64(p.Stored) / p.Seconds
	}
	r.logf("%s: %.1f s, %d events stored, %.0f events/s, WAL peak %s, RSS peak %s (%s)", what, p.Seconds, p.Stored, p.EventsPerSec, mib(p.WALPeak), mib(p.RSSPeak), p.Outcome)
	return p, nil
}

func walPath(data string) string { return engine.DatabasePath(data) + "-wal" }

// countEvents counts the trust events a data directory holds.
func countEvents(ctx context.Context, data string) (int64, error) {
	if _, err := os.Stat(engine.DatabasePath(data)); err != nil {
		return 0, nil
	}
	st, err := store.Open(engine.DatabasePath(data))
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return st.Count(ctx, nostr.Filter{Kinds: trustKinds})
}

// readFrontier records what the synced directory's status says.
func (r *run) readFrontier(ctx context.Context, data string) error {
	var s struct {
		Coverage struct {
			State   string   `json:"state"`
			Reasons []string `json:"reasons"`
		} `json:"coverage"`
		Frontier struct {
			Size       int   `json:"size"`
			ByDepth    []int `json:"byDepth"`
			Truncation []struct {
				Reason string `json:"reason"`
				Cut    int    `json:"cut"`
			} `json:"truncation"`
		} `json:"frontier"`
		Heap struct {
			Nodes       int    `json:"nodes"`
			Edges       int    `json:"edges"`
			LimitReason string `json:"limitReason"`
		} `json:"heap"`
		Store struct {
			WALLimitBytes int64 `json:"walLimitBytes"`
		} `json:"store"`
	}
	out, err := r.command(ctx, data, "status", "--json")
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		return fmt.Errorf("status --json: %w", err)
	}
	f := Frontier{Size: s.Frontier.Size, ByDepth: s.Frontier.ByDepth, Coverage: s.Coverage.State,
		HeapNodes: s.Heap.Nodes, HeapEdges: s.Heap.Edges, HeapLimit: s.Heap.LimitReason}
	if len(s.Coverage.Reasons) > 0 {
		f.Coverage += " (" + strings.Join(s.Coverage.Reasons, ", ") + ")"
	}
	for _, t := range s.Frontier.Truncation {
		f.Truncation = append(f.Truncation, fmt.Sprintf("%s %d", t.Reason, t.Cut))
	}
	r.res.Frontier, r.res.WALLimit = f, s.Store.WALLimitBytes
	return nil
}

// measureRest sizes the data directory, restarts a server on it (relay url
// removed, unless "", so nothing but the questions runs) and asks it.
func (r *run) measureRest(ctx context.Context, data, url string) error {
	if url != "" {
		if _, err := r.command(ctx, data, "relays", "remove", url); err != nil {
			return err
		}
	}
	var err error
	if r.res.DataDirBytes, err = dirSize(data); err != nil {
		return err
	}
	r.res.DatabaseSize = fileSize(engine.DatabasePath(data))
	r.res.WALAtRest = fileSize(walPath(data))

	r.logf("restart: serve --headless on the synced directory")
	srv, err := startServer(ctx, r.cfg.Binary, data, filepath.Join(r.dir, "serve.log"))
	if err != nil {
		return err
	}
	defer srv.stop()
	subject := r.web.Pubkey(r.cfg.Authors / 2)
	listening, answer, err := srv.firstAnswer(ctx, subject)
	if err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	r.res.ListeningSeconds = listening.Seconds()
	r.res.RestartSeconds = time.Since(srv.started).Seconds()
	r.res.FirstAnswer = answer
	r.logf("first answer after %.2f s: %s", r.res.RestartSeconds, answer)

	r.res.SettleSeconds = settle(ctx, srv.cmd.Process.Pid).Seconds()
	r.logf("start work settled %.1f s after the first answer", r.res.SettleSeconds)

	rng := rand.New(rand.NewPCG(uint64(r.cfg.Seed), 26))
	subjects := make([]string, r.cfg.Resolves+min(r.cfg.Resolves, 100))
	for k := range subjects {
		i := rng.IntN(r.cfg.Authors)
		if k%5 == 4 {
			subjects[k] = r.web.XAccount(i)
		} else {
			subjects[k] = r.web.Pubkey(i)
		}
	}
	r.logf("%d warm resolves", r.cfg.Resolves)
	asked := func(k int) string { return subjects[k%len(subjects)] }
	if r.res.Resolve, err = srv.timeResolves(ctx, len(subjects), len(subjects)-r.cfg.Resolves, asked, nil); err != nil {
		return err
	}
	// the first question after each commit, which a walk cached before it
	// must be brought up to date for
	commits := r.commits()
	r.logf("%d resolves, each the first after a pushed statement's commit", len(commits))
	pushed := func(c *websocket.Conn, k int) error { return push(ctx, c, commits[k]) }
	if r.res.ResolveAfterCommit, err = srv.timeResolves(ctx, len(commits), 0, asked, pushed); err != nil {
		return err
	}
	// questions at a steady pace, then again while another connection
	// pushes statement after statement, as during a sync
	r.logf("%d questions at a steady pace, one every %s", 2*r.cfg.Resolves, pacedGap)
	if r.res.ResolvePaced, err = r.pacedResolves(ctx, srv, asked, false); err != nil {
		return err
	}
	r.logf("the same while statements are pushed on another connection")
	if r.res.ResolveDuringPushes, err = r.pacedResolves(ctx, srv, asked, true); err != nil {
		return err
	}
	r.res.RestRSS, r.res.ServerPeakRSS = processRSS(srv.cmd.Process.Pid)
	return nil
}

// settle waits until a server's start work is over (at 300,000 people a
// newcomers track of every member, the frontier's saved walk put to use,
// the collector after the load: seconds of a core after the first answer),
// and returns how long that took: its CPU time grew by less than a twentieth
// of the time over the last half second, or settleMax passed. Questions
// timed before share the cores with that work.
func settle(ctx context.Context, pid int) time.Duration {
	const (
		step      = 250 * time.Millisecond
		window    = 2 // steps
		settleMax = 60 * time.Second
	)
	start := time.Now()
	var seen []time.Duration
	for time.Since(start) < settleMax && ctx.Err() == nil {
		cpu, ok := processCPU(pid)
		if !ok {
			break
		}
		if seen = append(seen, cpu); len(seen) > window && seen[len(seen)-1]-seen[len(seen)-1-window] < window*step/20 {
			break
		}
		time.Sleep(step)
	}
	return time.Since(start)
}

func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	return total, err
}

func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// lastLines is the end of a log, for an error message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
