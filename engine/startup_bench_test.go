package engine

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// scaleDataDir is a data directory holding the ScaleWeb of authors people,
// written straight into its store (nothing re-verifies stored events, so
// they are Unsigned), rooted at its root with caps that cover it. Filling a
// million events takes minutes, so it is kept for later runs under
// $DTP_SCALE_DIR (default: dtp-scale in the temporary directory), outside
// the repository.
func scaleDataDir(tb testing.TB, authors int) (dir string, web *fixture.ScaleWeb) {
	tb.Helper()
	base := os.Getenv("DTP_SCALE_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), "dtp-scale")
	}
	dir = filepath.Join(base, fmt.Sprintf("scaleweb-%d", authors))
	web = fixture.NewScaleWeb(authors, 1)
	complete := filepath.Join(dir, "complete")
	if _, err := os.Stat(complete); err == nil {
		return dir, web
	}
	if err := os.RemoveAll(dir); err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	st, err := store.Open(DatabasePath(dir))
	if err != nil {
		tb.Fatal(err)
	}
	start, stored := time.Now(), 0
	err = web.EachUnsigned(func(evs []*nostr.Event) error {
		for i := 0; i < len(evs); i += 1000 {
			if _, err := st.SaveBatch(evs[i:min(i+1000, len(evs))]); err != nil {
				return err
			}
		}
		stored += len(evs)
		return nil
	})
	if err == nil {
		err = settings.Modify(st, func(s *settings.Settings) error {
			s.Limits = coveringLimits(authors)
			return settings.AddRoot(web.Pubkey(0))(s)
		})
	}
	if err = errors.Join(err, st.Close()); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("stored %d events of %d authors in %s (%v)", stored, authors, dir, time.Since(start).Round(time.Second))
	if err := os.WriteFile(complete, nil, 0o600); err != nil {
		tb.Fatal(err)
	}
	return dir, web
}

// coveringLimits are caps raised so that a ScaleWeb of authors is one
// frontier, as issue 26 measured it.
func coveringLimits(authors int) settings.Limits {
	l := settings.DefaultLimits()
	l.MaxDepth = settings.MaxDepthHardCap
	l.MaxAuthorsPerLevel, l.MaxTotalAuthors = authors, authors
	l.MaxEvents, l.MaxRatingEvents = authors*fixture.ScaleWebMaxStatements, 20*authors
	return l
}

// BenchmarkRestart100k is restart to the first answer with 100,000 authors
// (about 1.25 million events, written straight into the store): a fresh
// process (this test binary again) opens the data directory, loads the
// heap, walks the frontier and answers one resolve. Each run starts from
// the heap snapshot the one before left; the first run of all has none, so
// it builds the heap from the database and writes the snapshot (reported as
// rebuild-*). It reports the wall time from starting the process to its
// answer (the median run), Open's parts as its log line names them, the
// process's CPU time to the answer (which the machine's other load does not
// stretch), and its peak RSS to then and RSS at rest 3 s later. The data
// directory is filled on the first use (minutes), then kept (scaleDataDir).
// Run with -benchtime 3x.
func BenchmarkRestart100k(b *testing.B) { benchRestart(b, 100_000) }

// BenchmarkRestart300k is BenchmarkRestart100k at 300,000 authors (about
// 3.75 million events).
func BenchmarkRestart300k(b *testing.B) { benchRestart(b, 300_000) }

// restartFigures is what TestRestartChild prints, and the wall time to its
// answer as its parent saw it.
type restartFigures struct {
	Wall             time.Duration
	Open, Answer     time.Duration // since the child began
	CPU              time.Duration // the child's, to the answer
	PeakKiB, RestKiB int64
	Parts            map[string]time.Duration // Open's log line
}

func benchRestart(b *testing.B, authors int) {
	dir, web := scaleDataDir(b, authors)
	subject := web.Pubkey(authors - 1)
	if err := os.Remove(heapSnapshotPath(dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		b.Fatal(err)
	}
	rebuild := restart(b, dir, subject)
	var runs []restartFigures
	for b.Loop() {
		runs = append(runs, restart(b, dir, subject))
	}
	slices.SortFunc(runs, func(x, y restartFigures) int { return cmp.Compare(x.Wall, y.Wall) })
	for _, r := range []struct {
		prefix string
		f      restartFigures
	}{{"rebuild-", rebuild}, {"", runs[len(runs)/2]}} {
		f := r.f
		b.ReportMetric(f.Wall.Seconds(), r.prefix+"restart-s")
		b.ReportMetric(f.CPU.Seconds(), r.prefix+"restart-cpu-s")
		b.ReportMetric((f.Answer-f.Open).Seconds()*1000, r.prefix+"first-resolve-ms")
		for part, d := range f.Parts {
			b.ReportMetric(d.Seconds(), r.prefix+part+"-s")
		}
		b.ReportMetric(float64(f.PeakKiB)/1024, r.prefix+"peak-RSS-MiB")
		b.ReportMetric(float64(f.RestKiB)/1024, r.prefix+"rest-RSS-MiB")
	}
}

// restart runs TestRestartChild on dir and returns its figures.
func restart(b *testing.B, dir, subject string) restartFigures {
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRestartChild$")
	cmd.Env = append(os.Environ(), "DTP_RESTART_CHILD="+dir, "DTP_RESTART_SUBJECT="+subject)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var f restartFigures
	var wall time.Duration
	for lines := bufio.NewScanner(out); lines.Scan(); {
		line := lines.Text()
		if line == restartAnswered {
			wall = time.Since(start)
		} else if js, ok := strings.CutPrefix(line, restartPrefix); ok {
			if err := json.Unmarshal([]byte(js), &f); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil || f.Answer == 0 {
		b.Fatalf("restarted process: %v", err)
	}
	f.Wall = wall
	return f
}

const (
	restartAnswered = "restart: answered"
	restartPrefix   = "restart: figures "
)

// TestRestartChild is the restarted process of BenchmarkRestart*; it does
// nothing in a test run.
func TestRestartChild(t *testing.T) {
	dir := os.Getenv("DTP_RESTART_CHILD")
	if dir == "" {
		t.Skip("the restarted process of BenchmarkRestart")
	}
	start := time.Now()
	opened := &openedLine{}
	eng, err := Open(Options{DataDir: dir, Logger: slog.New(slog.NewJSONHandler(opened, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	open := time.Since(start)
	if _, err := eng.Resolve(context.Background(), Query{Subject: os.Getenv("DTP_RESTART_SUBJECT")}); err != nil {
		t.Fatal(err)
	}
	answer, cpu := time.Since(start), testutil.ProcessCPU(t)
	fmt.Println(restartAnswered)
	f := restartFigures{Open: open, Answer: answer, CPU: cpu, PeakKiB: procStatusKiB(t, "VmHWM"), Parts: opened.parts}
	time.Sleep(3 * time.Second)
	f.RestKiB = procStatusKiB(t, "VmRSS")
	js, _ := json.Marshal(f)
	fmt.Println(restartPrefix + string(js))
}

// openedLine keeps the durations of Open's "opened" log line.
type openedLine struct{ parts map[string]time.Duration }

func (o *openedLine) Write(p []byte) (int, error) {
	var rec map[string]any
	if json.Unmarshal(p, &rec) == nil && rec["msg"] == "opened" {
		o.parts = map[string]time.Duration{}
		for k, v := range rec {
			if n, ok := v.(float64); ok {
				o.parts[k] = time.Duration(n)
			}
		}
	}
	return len(p), nil
}

// procStatusKiB reads a kB figure of /proc/self/status (VmRSS, VmHWM).
func procStatusKiB(t testing.TB, field string) int64 {
	kib, ok := testutil.ProcStatusKiB(field)
	if !ok {
		t.Fatalf("no %s in /proc/self/status", field)
	}
	return kib
}
