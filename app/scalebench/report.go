package scalebench

import (
	"fmt"
	"io"
	"strings"
)

// Print writes the figures as a table, one per line.
func (res *Result) Print(w io.Writer) {
	p := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-26s %s\n", label, fmt.Sprintf(format, args...))
	}
	if res.Rest != "" {
		p("rest only", "%s (the web of W=%d, seed %d)", res.Rest, res.Authors, res.Seed)
	} else {
		res.printSync(p)
	}
	res.printRest(p)
}

// printSync writes the figures of the web, the relay, the syncs and the push.
func (res *Result) printSync(p func(label, format string, args ...any)) {
	p("web", "W=%d authors, seed %d: %d events (%s)", res.Authors, res.Seed, res.Events, kindList(res.Kinds))
	cached := "signed"
	if res.WebCached {
		cached = "from the cache"
	}
	p("", "%s in %.1f s: %s", cached, res.WebSeconds, res.WebFile)
	load := fmt.Sprintf("%s, loaded in %.1f s (%.0f events/s)", res.Relay, res.LoadSeconds, perSec(res.Events, res.LoadSeconds))
	if res.LoadWALPeak > 0 {
		load += ", import's WAL peak " + mib(res.LoadWALPeak)
	}
	p("relay", "%s", load)
	p("first sync", "%.1f s, %d of the relay's %d events stored, %.0f events/s — %s", res.FirstSync.Seconds, res.FirstSync.Stored, res.Events, res.FirstSync.EventsPerSec, res.FirstSync.Outcome)
	f := res.Frontier
	trunc := "none"
	if len(f.Truncation) > 0 {
		trunc = strings.Join(f.Truncation, ", ")
	}
	p("  frontier", "%d authors, by depth %v, truncation %s; coverage %s", f.Size, f.ByDepth, trunc, f.Coverage)
	heap := fmt.Sprintf("%d nodes, %d edges", f.HeapNodes, f.HeapEdges)
	if f.HeapLimit != "" {
		heap += ", at " + f.HeapLimit
	}
	p("  heap", "%s", heap)
	p("  WAL peak", "%s (bound %s)", mib(res.FirstSync.WALPeak), mib(res.WALLimit))
	p("  RSS peak", "%s (the sync process)", mib(res.FirstSync.RSSPeak))
	if ref := res.Reference; ref != nil {
		p("strfry sync --dir down", "%.1f s, %d events, %.0f events/s (first sync ÷ strfry = %.2f by events stored a second, %.2f by time for the same relay); again with nothing new %.1f s",
			ref.Seconds, ref.Events, ref.EventsPerSec, ref.Ratio, ref.TimeRatio, ref.Again)
	}
	if ps := res.Push; ps != nil {
		refused := fmt.Sprintf("%d refused", ps.Refused)
		if len(ps.Refusals) > 0 {
			refused += " (" + strings.Join(ps.Refusals, ", ") + ")"
		}
		p("push", "%.1f s, %d events over %d connections: %d acked, %s, %d stored, %.0f events/s (first sync ÷ push = %.2f); the server's WAL peak %s, RSS peak %s",
			ps.Seconds, ps.Events, ps.Connections, ps.Acked, refused, ps.Stored, ps.EventsPerSec, ps.Ratio, mib(ps.WALPeak), mib(ps.RSSPeak))
	}
	p("refresh, nothing new", "%.1f s, %d events stored, WAL peak %s, RSS peak %s — %s", res.NoChange.Seconds, res.NoChange.Stored, mib(res.NoChange.WALPeak), mib(res.NoChange.RSSPeak), res.NoChange.Outcome)
	p("refresh, 1 % changed", "%.1f s, %d of %d published events stored, WAL peak %s, RSS peak %s — %s", res.Change.Seconds, res.Change.Stored, res.Published, mib(res.Change.WALPeak), mib(res.Change.RSSPeak), res.Change.Outcome)
}

// printRest writes the figures of the synced directory, its restart and the
// questions.
func (res *Result) printRest(p func(label, format string, args ...any)) {
	p("data directory", "%s (dtp.db %s, WAL at rest %s)", mib(res.DataDirBytes), mib(res.DatabaseSize), mib(res.WALAtRest))
	p("restart to first answer", "%.2f s (listening after %.2f s): %s", res.RestartSeconds, res.ListeningSeconds, res.FirstAnswer)
	r := res.Resolve
	p("resolve (warm)", "%d questions once the start's work settled (%.1f s after the first answer): p50 %.2f ms, p99 %.2f ms, max %.2f ms (server compute mean %.0f µs, p99 %.0f µs)",
		r.Count, res.SettleSeconds, r.P50, r.P99, r.Max, r.ComputeMicros, r.ComputeP99)
	r = res.ResolveAfterCommit
	p("resolve after a commit", "%d questions, each the first after a pushed statement: p50 %.2f ms, p99 %.2f ms, max %.2f ms (server compute mean %.0f µs, p99 %.0f µs)", r.Count, r.P50, r.P99, r.Max, r.ComputeMicros, r.ComputeP99)
	r = res.ResolvePaced
	p("resolve at a steady pace", "%d questions, one every %s, each timed from its sending: p50 %.2f ms, p99 %.2f ms, max %.2f ms (server compute mean %.0f µs, p99 %.0f µs)", r.Count, pacedGap, r.P50, r.P99, r.Max, r.ComputeMicros, r.ComputeP99)
	r = res.ResolveDuringPushes
	p("  while pushed to", "the same while another connection pushed statement after statement: p50 %.2f ms, p99 %.2f ms, max %.2f ms (server compute mean %.0f µs, p99 %.0f µs)", r.P50, r.P99, r.Max, r.ComputeMicros, r.ComputeP99)
	p("server RSS", "%s at rest after the questions, peak %s", mib(res.RestRSS), mib(res.ServerPeakRSS))
}

func kindList(kinds map[string]int) string {
	var parts []string
	for _, k := range []string{"32009", "32014", "10011"} {
		parts = append(parts, fmt.Sprintf("%s: %d", k, kinds[k]))
	}
	return strings.Join(parts, ", ")
}

func perSec(n int, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(n) / seconds
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
