package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"dtp-personal/app/scalebench"
)

// benchSmall runs the scale benchmark on a small web and checks that every
// figure it prints was measured: the web synced whole, a fresh server took
// as many events pushed, every one acked, the refreshes stored nothing and
// exactly the published change, the restarted server answered.
func benchSmall(t *testing.T, args ...string) scalebench.Result {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"bench", "--authors", "150", "--cache", "none", "--resolves", "50", "--json"}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("bench: %v\n%s", err, stderr)
	}
	var res scalebench.Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// every statement and rating is fetched; claims only of hinted authors
	statements := int64(res.Kinds["32009"] + res.Kinds["32014"])
	if res.Events < 150*9 || res.FirstSync.Stored < statements || res.FirstSync.Stored > int64(res.Events) {
		t.Errorf("first sync stored %d of %d events (%v)", res.FirstSync.Stored, res.Events, res.Kinds)
	}
	if res.FirstSync.Outcome != "complete" || res.Frontier.Size != 150 || len(res.Frontier.Truncation) != 0 {
		t.Errorf("first sync %q, frontier %+v", res.FirstSync.Outcome, res.Frontier)
	}
	if res.FirstSync.EventsPerSec <= 0 || res.FirstSync.WALPeak <= 0 || res.FirstSync.RSSPeak <= 0 {
		t.Errorf("first sync figures missing: %+v", res.FirstSync)
	}
	if ps := res.Push; ps == nil || ps.Events != int(res.FirstSync.Stored) || ps.Acked != ps.Events || ps.Refused != 0 ||
		ps.Stored != int64(ps.Acked) || ps.EventsPerSec <= 0 || ps.Ratio <= 0 || ps.WALPeak <= 0 || ps.RSSPeak <= 0 {
		t.Errorf("push %+v after a first sync that stored %d", ps, res.FirstSync.Stored)
	}
	if res.NoChange.Stored != 0 || res.NoChange.Outcome != "complete" {
		t.Errorf("refresh with nothing new: %+v", res.NoChange)
	}
	if res.Published < 1 || res.Change.Stored != int64(res.Published) {
		t.Errorf("refresh after the change stored %d of %d published", res.Change.Stored, res.Published)
	}
	if res.DataDirBytes < res.DatabaseSize || res.DatabaseSize <= 0 {
		t.Errorf("data directory %d bytes, database %d", res.DataDirBytes, res.DatabaseSize)
	}
	if res.RestartSeconds <= 0 || res.RestartSeconds < res.ListeningSeconds || res.FirstAnswer == "" {
		t.Errorf("restart %.3f s, listening %.3f s, answer %q", res.RestartSeconds, res.ListeningSeconds, res.FirstAnswer)
	}
	if res.Resolve.Count != 50 || res.Resolve.P50 <= 0 || res.Resolve.P99 < res.Resolve.P50 || res.RestRSS <= 0 {
		t.Errorf("resolves %+v, RSS at rest %d", res.Resolve, res.RestRSS)
	}
	if a := res.ResolveAfterCommit; a.Count != 2 || a.P50 <= 0 || a.P99 < a.P50 {
		t.Errorf("resolves after a commit %+v, want 2 (authors 25 and 125)", a)
	}
	for _, paced := range []scalebench.Latency{res.ResolvePaced, res.ResolveDuringPushes} {
		if paced.Count != 100 || paced.P50 <= 0 || paced.P99 < paced.P50 {
			t.Errorf("paced resolves %+v, want 100", paced)
		}
	}
	if res.SettleSeconds <= 0 || res.SettleSeconds >= 60 {
		t.Errorf("the restarted server's start work settled after %.1f s, want within the minute", res.SettleSeconds)
	}
	if res.WALLimit != 64<<20 || res.FirstSync.WALPeak > res.WALLimit {
		t.Errorf("WAL peak %d of a bound of %d bytes", res.FirstSync.WALPeak, res.WALLimit)
	}
	return res
}

// The benchmark's own command works end to end against a second
// dtp-personal server as the relay (what the default test machine has).
// Then --rest times the restart and the questions again on the data
// directory the run kept.
func TestBenchSmallWeb(t *testing.T) {
	work := t.TempDir()
	res := benchSmall(t, "--relay", "dtp-personal", "--keep", "--work", work)
	if res.Reference != nil || res.LoadWALPeak <= 0 {
		t.Errorf("strfry reference %+v without strfry; import's WAL peak %d", res.Reference, res.LoadWALPeak)
	}
	kept, _ := filepath.Glob(filepath.Join(work, "dtp-bench-*", "sync"))
	if len(kept) != 1 {
		t.Fatalf("kept sync directories %v, want one", kept)
	}
	out, err := exec.Command(binary, "bench", "--authors", "150", "--resolves", "50", "--work", work, "--json", "--rest", kept[0]).Output()
	if err != nil {
		t.Fatalf("bench --rest: %v", err)
	}
	var rest scalebench.Result
	if err := json.Unmarshal(out, &rest); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rest.Rest != kept[0] || rest.FirstSync.Seconds != 0 || rest.DatabaseSize <= 0 ||
		rest.RestartSeconds <= 0 || rest.FirstAnswer == "" || rest.Resolve.Count != 50 || rest.ResolveAfterCommit.Count != 2 ||
		rest.ResolveDuringPushes.Count != 100 || rest.RestRSS <= 0 {
		t.Errorf("bench --rest %s: %+v", kept[0], rest)
	}
}

// With strfry installed ($DTP_BENCH_STRFRY or on PATH), the benchmark
// drives it as the relay and times its NIP-77 copy as the reference.
func TestBenchSmallWebStrfry(t *testing.T) {
	path, err := findStrfry("strfry", os.Getenv(strfryEnv))
	if err != nil {
		t.Skip("no strfry here:", err)
	}
	res := benchSmall(t, "--relay", "strfry", "--strfry", path)
	if ref := res.Reference; ref == nil || ref.Events != int64(res.Events) || ref.EventsPerSec <= 0 || ref.TimeRatio <= 0 {
		t.Errorf("strfry reference %+v for %d events", ref, res.Events)
	}
}
