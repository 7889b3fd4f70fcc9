package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/relay"
	"dtp-personal/internal/testutil"
)

// BenchmarkFilterCost asks each relay of the sync benchmarks (our server in
// a second process, strfry when found; see syncbench_test.go) for every
// filter shape the sync sends, one REQ at a time over random keys of the
// benchmark web, and prints per shape the wall time and the relay's CPU per
// REQ (the steadier figure on a shared machine) and the events returned.
// The shapes the sync no longer sends (ratings with "#s", discovery with
// "#k") are measured beside the ones that replaced them (issue 26). Run with
// -benchtime 1x, DTP_BENCH_AUTHORS=100000 for the 1.2 million-event web.
func BenchmarkFilterCost(b *testing.B) {
	web := loadBenchWeb(b)
	var authors, subjects []string
	seen := map[string]bool{}
	for _, ev := range web.events {
		if !seen[ev.PubKey] {
			seen[ev.PubKey] = true
			authors = append(authors, ev.PubKey)
		}
		if t := ev.Tags.Find("i"); ev.Kind == 32009 && len(t) > 2 && !seen[t[1]] {
			seen[t[1]] = true
			subjects = append(subjects, t[1])
		}
	}
	rng := rand.New(rand.NewPCG(26, 2))
	pick := func(from []string, n int) []string {
		out := make([]string, min(n, len(from)))
		for i := range out {
			out[i] = from[rng.IntN(len(from))]
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	recent := nostr.Timestamp(time.Now().Unix() - 15*60)
	shapes := []filterShape{
		{"trust authors:20", func() nostr.Filter { return nostr.Filter{Kinds: []int{32009}, Authors: pick(authors, 20), Limit: 200} }},
		{"ratings authors:20 #s (old)", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{32014}, Authors: pick(authors, 20), Tags: nostr.TagMap{"s": {"x.com"}}, Limit: 200}
		}},
		{"ratings authors:20", func() nostr.Filter { return nostr.Filter{Kinds: []int{32014}, Authors: pick(authors, 20), Limit: 200} }},
		{"claims authors:20", func() nostr.Filter { return nostr.Filter{Kinds: []int{10011}, Authors: pick(authors, 20), Limit: 200} }},
		{"discovery #k #i:20 (old)", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{32009}, Tags: nostr.TagMap{"k": {"user:id"}, "i": pick(subjects, 20)}, Limit: 200}
		}},
		{"discovery #i:20", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{32009}, Tags: nostr.TagMap{"i": pick(subjects, 20)}, Limit: 200}
		}},
		{"trust authors:500 since 15 min", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{32009}, Authors: pick(authors, 500), Since: &recent, Limit: 200}
		}},
		{"live global trust since 15 min", func() nostr.Filter { return nostr.Filter{Kinds: []int{32009}, Since: &recent, Limit: 200} }},
		{"live global ratings #s since 15 min", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{32014}, Tags: nostr.TagMap{"s": {"x.com"}}, Since: &recent, Limit: 200}
		}},
		{"live global claims since 15 min", func() nostr.Filter { return nostr.Filter{Kinds: []int{10011}, Since: &recent, Limit: 200} }},
		{"live frontier trust authors:900 since 15 min", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{32009}, Authors: pick(authors, 900), Since: &recent, Limit: 200}
		}},
		{"repo layer 1 kinds:30617", func() nostr.Filter { return nostr.Filter{Kinds: []int{30617}, Limit: 200} }},
		{"repo state kinds:30618 authors #d", func() nostr.Filter {
			return nostr.Filter{Kinds: []int{30618}, Authors: pick(authors, 20), Tags: nostr.TagMap{"d": {"repo"}}, Limit: 200}
		}},
		{"repo layer 2 #a:100", func() nostr.Filter {
			refs := pick(authors, 100)
			for i := range refs {
				refs[i] = "30617:" + refs[i] + ":repo"
			}
			return nostr.Filter{Tags: nostr.TagMap{"a": refs}, Limit: 200}
		}},
		{"repo layer 3 #e:100", func() nostr.Filter {
			return nostr.Filter{Tags: nostr.TagMap{"e": pick(authors, 100)}, Limit: 200}
		}},
	}
	const reqs = 40
	for _, r := range benchRelays(b, web) {
		c, err := relay.Dial(context.Background(), r.url, relay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for range b.N {
			for _, s := range shapes {
				cost := s.measure(b, c, r, reqs)
				b.Logf("%-6s %-46s %7.2f ms/REQ, relay CPU %6.2f ms/REQ, %5.1f events/REQ",
					r.kind, s.name, cost.wallMs, cost.relayCPUMs, cost.events)
				b.ReportMetric(cost.relayCPUMs, r.kind+":"+strings.ReplaceAll(s.name, " ", "_")+"-cpu-ms/REQ")
			}
			for _, kind := range []int{32009, 32014, 10011} {
				for _, width := range []int{20, 100, 200, 500} {
					name := fmt.Sprintf("whole %d authors:%d", kind, width)
					cost := wholeFetchCost(b, c, r, kind, func() []string { return pick(authors, width) }, 4000/width)
					b.Logf("%-6s %-46s %7.2f ms/REQ, relay CPU %6.2f ms/REQ, %5.1f events/REQ, %4.1f pages, relay CPU %5.1f µs/event",
						r.kind, name, cost.wallMs, cost.relayCPUMs, cost.events, cost.pages, cost.relayCPUMs*1000/max(cost.events, 1))
					b.ReportMetric(cost.relayCPUMs, r.kind+":"+strings.ReplaceAll(name, " ", "_")+"-cpu-ms/REQ")
				}
			}
			neg := reconcileCost(b, c, r, web, pick(authors, 500), reqs/4)
			b.Logf("%-6s %-46s %7.2f ms/reconciliation, relay CPU %6.2f ms, %5.0f events held", r.kind,
				"NIP-77 trust authors:500 (in sync)", neg.wallMs, neg.relayCPUMs, neg.events)
			b.ReportMetric(neg.relayCPUMs, r.kind+":nip77_trust_authors:500-cpu-ms/REQ")
		}
		c.Close()
	}
}

// filterShape makes one filter of its shape over new random keys per call.
type filterShape struct {
	name   string
	filter func() nostr.Filter
}

type reqCost struct{ wallMs, relayCPUMs, events float64 }

// measure runs n REQs of the shape one after another, each to EOSE.
func (s filterShape) measure(b *testing.B, c *relay.Conn, r *benchRelay, n int) reqCost {
	b.Helper()
	filters := make([]nostr.Filter, n)
	for i := range filters {
		filters[i] = s.filter()
	}
	events := 0
	start, cpu0 := time.Now(), r.cpu()
	for _, f := range filters {
		evs, err := c.Page(context.Background(), f)
		if err != nil {
			b.Fatalf("%s on %s: %v", s.name, r.kind, err)
		}
		events += len(evs)
	}
	return reqCost{
		wallMs:     float64(time.Since(start).Microseconds()) / 1000 / float64(n),
		relayCPUMs: float64((r.cpu() - cpu0).Microseconds()) / 1000 / float64(n),
		events:     float64(events) / float64(n),
	}
}

// wholeCost is a paged fetch's cost: every page of its REQ to EOSE.
type wholeCost struct{ wallMs, relayCPUMs, events, pages float64 }

// wholeFetchCost pages n filters of one kind over width random authors each
// to the end (pages of 200, as a first-time fetch of the sync), one after
// another: the cost of a first fetch per REQ and per event at its width.
func wholeFetchCost(b *testing.B, c *relay.Conn, r *benchRelay, kind int, authors func() []string, n int) wholeCost {
	b.Helper()
	var filters []nostr.Filter
	for range n {
		filters = append(filters, nostr.Filter{Kinds: []int{kind}, Authors: authors(), Limit: 200})
	}
	events, pages := 0, 0
	start, cpu0 := time.Now(), r.cpu()
	for _, f := range filters {
		st, err := c.FetchPages(context.Background(), f, 0, func([]*nostr.Event) error { return nil })
		if err != nil {
			b.Fatalf("kind %d on %s: %v", kind, r.kind, err)
		}
		events, pages = events+st.Events, pages+st.Pages
	}
	return wholeCost{
		wallMs:     float64(time.Since(start).Microseconds()) / 1000 / float64(n),
		relayCPUMs: float64((r.cpu() - cpu0).Microseconds()) / 1000 / float64(n),
		events:     float64(events) / float64(n),
		pages:      float64(pages) / float64(n),
	}
}

// reconcileCost reconciles the trust statements of authors, held alike on
// both sides, n times.
func reconcileCost(b *testing.B, c *relay.Conn, r *benchRelay, web benchWeb, authors []string, n int) reqCost {
	b.Helper()
	f := nostr.Filter{Kinds: []int{32009}, Authors: authors}
	held := testutil.Matching(web.events, f, 0)
	local := func(yield func(nostr.Timestamp, string) bool) {
		for _, ev := range held {
			if !yield(ev.CreatedAt, ev.ID) {
				return
			}
		}
	}
	start, cpu0 := time.Now(), r.cpu()
	for range n {
		rec, err := c.Reconcile(context.Background(), f, local)
		if err != nil || len(rec.Need)+len(rec.Lacking) != 0 {
			b.Fatalf("reconcile on %s: %v, %d needed, %d lacking", r.kind, err, len(rec.Need), len(rec.Lacking))
		}
	}
	return reqCost{
		wallMs:     float64(time.Since(start).Microseconds()) / 1000 / float64(n),
		relayCPUMs: float64((r.cpu() - cpu0).Microseconds()) / 1000 / float64(n),
		events:     float64(len(held)),
	}
}
