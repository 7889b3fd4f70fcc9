package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

// BenchmarkRootAddToCompleteAnswer is the time from `roots add` on a running
// server (interval strategy, 15 min) to the first complete answer about a
// subject the new root's 200 trusted people each trust, every one of them
// with 20 statements, from a relay on loopback 50 ms away each way (issue
// 32). maxTotalAuthors is lowered to 2,000 so that a pass's share per
// author (maxEvents ÷ maxTotalAuthors) takes the root's 200 statements: at
// the default share of 20 the answer stays partial (maxEventsPerAuthor). It also checks that no answer taken with the root in the frontier is
// complete before all 200 speak. Run with -benchtime 3x.
func BenchmarkRootAddToCompleteAnswer(b *testing.B) {
	const people, statements = 200, 20
	now := time.Now().Unix() - 600
	root, target := fixture.NewAuthor(500), fixture.NewAuthor(499)
	var evs []*nostr.Event
	at := now // one second apart, as people publish: paging goes by created_at
	next := func() int64 { at--; return at }
	for i := range people {
		p := fixture.NewAuthor(501 + i)
		evs = append(evs, root.Trust(fixture.P(p.Pubkey), "1", next()), p.Trust(fixture.P(target.Pubkey), "1", next()))
		for j := 1; j < statements; j++ {
			evs = append(evs, p.Trust(fixture.XUser(fmt.Sprint(i*statements+j)), "1", next(), fixture.Scopes("x.com")))
		}
	}
	relay := faultrelay.StartForTest(b, faultrelay.Mode{}, evs...)
	proxy := testutil.StartDelayProxy(b, strings.TrimPrefix(relay.URL, "ws://"), 50*time.Millisecond)
	var total, fetchStart time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		eng, _ := startEngine(b, Options{FrontierDebounce: time.Second}) // production's debounce
		// a root trusting 200 people: the per-author share of a pass,
		// maxEvents ÷ maxTotalAuthors (20 by default), must reach 200
		limits := settings.DefaultLimits()
		limits.MaxTotalAuthors = limits.MaxEvents / people
		for _, edit := range []func(*settings.Settings) error{
			settings.AddRelay("ws://" + proxy.Addr), settings.SetInterval(15), settings.SetLimits(limits),
		} {
			if err := eng.Modify(edit); err != nil {
				b.Fatal(err)
			}
		}
		testutil.EventuallyWithin(b, 30*time.Second, "the first pass", func() bool { return eng.Status().LastSync > 0 })
		b.StartTimer()
		added := time.Now()
		if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
			b.Fatal(err)
		}
		var sawFetching time.Duration
		for {
			if sawFetching == 0 && eng.Status().Newcomers.Fetching > 0 {
				sawFetching = time.Since(added)
			}
			inFrontier := slices.Contains(eng.trust.frontier.Current().Roots, root.Pubkey)
			a, err := eng.Resolve(context.Background(), Query{Subject: target.Pubkey})
			if err != nil {
				b.Fatal(err)
			}
			if inFrontier && a.Coverage.State == status.StateComplete {
				if len(a.Evidence) != people {
					b.Fatalf("complete with %d of %d people's statements", len(a.Evidence), people)
				}
				break
			}
			if time.Since(added) > time.Minute {
				b.Fatalf("no complete answer a minute after the add: %+v", a.Coverage)
			}
			time.Sleep(5 * time.Millisecond)
		}
		total += time.Since(added)
		fetchStart += sawFetching
		b.StopTimer()
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/add-to-complete")
	b.ReportMetric(fetchStart.Seconds()/float64(b.N), "s/add-to-fetching")
}
