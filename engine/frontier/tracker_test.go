package frontier

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/heap"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/testutil"
)

type leftLog struct {
	mu   sync.Mutex
	seen [][]string
}

func (l *leftLog) add(p []string) { l.mu.Lock(); l.seen = append(l.seen, p); l.mu.Unlock() }
func (l *leftLog) all() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

func waitChange(t *testing.T, ch <-chan struct{}, within time.Duration) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(within):
		t.Fatalf("no frontier change within %v", within)
	}
}

func startTracker(t *testing.T, h *heap.Heap, cfg Config) *Tracker {
	t.Helper()
	tr := NewTracker(h, cfg)
	first := tr.Changed()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tr.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitChange(t, first, time.Second)
	return tr
}

func TestTrackerDebouncesBurstAndReportsLeavers(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 2}, [2]int{2, 3})
	var left leftLog
	tr := startTracker(t, h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}, Debounce: 40 * time.Millisecond, OnLeft: left.add})
	if tr.Current().Size() != 3 {
		t.Fatalf("initial size %d", tr.Current().Size())
	}

	changed := tr.Changed()
	withdraw := trust(1, 2, "-1")
	withdraw.CreatedAt = 2
	if c := h.Apply([]*validation.Statement{withdraw}, nil); !c.HopsChanged {
		t.Fatal("withdrawn hop not reported")
	}
	for range 5 {
		tr.Notify()
	}
	waitChange(t, changed, time.Second)
	if got := tr.Current().Pubkeys(); !slices.Equal(got, []string{pk(1)}) {
		t.Fatalf("after withdrawal %v", got)
	}
	if got := left.all(); len(got) != 1 || !slices.Equal(got[0], []string{pk(2), pk(3)}) {
		t.Fatalf("left %v", got)
	}
	select {
	case <-tr.Changed():
		t.Fatal("a burst of notifies caused more than one walk")
	case <-time.After(150 * time.Millisecond):
	}
}

func TestTrackerSessionRoots(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{9, 10})
	var left leftLog
	tr := startTracker(t, h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}, Debounce: 10 * time.Millisecond, OnLeft: left.add})

	changed := tr.Changed()
	tr.AddSessionRoots("conn-1", []string{pk(9)})
	waitChange(t, changed, time.Second)
	if got := tr.Current().Pubkeys(); !slices.Equal(got, []string{pk(1), pk(9), pk(10)}) {
		t.Fatalf("with session %v", got)
	}
	st := tr.Status()
	if !slices.Equal(st.Roots, []string{pk(1)}) || !slices.Equal(st.SessionRoots, []string{pk(9)}) || st.Size != 3 || !slices.Equal(st.ByDepth, []int{2, 1}) {
		t.Fatalf("status %+v", st)
	}

	changed = tr.Changed()
	tr.RemoveSession("conn-1")
	waitChange(t, changed, time.Second)
	if got := left.all(); len(got) != 1 || !slices.Equal(got[0], []string{pk(9), pk(10)}) {
		t.Fatalf("left %v", got)
	}
}

func TestTrackerWithRootsIsPerQuery(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 2}, [2]int{5, 6})
	tr := NewTracker(h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}})
	tr.Recompute()
	if tr.WithRoots([]string{pk(1)}) != tr.Current() {
		t.Fatal("known roots must reuse the current frontier")
	}
	r := tr.WithRoots([]string{pk(5)})
	if got := r.Pubkeys(); !slices.Equal(got, []string{pk(1), pk(2), pk(5), pk(6)}) {
		t.Fatalf("with extra root %v", got)
	}
	if tr.Current().Size() != 2 {
		t.Fatal("a query's extra roots leaked into the frontier")
	}
}

func TestTrackerWakesWhenAHopBecomesActive(t *testing.T) {
	h := graph(settings.DefaultLimits())
	st := trust(1, 2, "1")
	st.ActiveFrom = time.Now().Unix() + 1
	h.Apply([]*validation.Statement{st}, nil)
	tr := startTracker(t, h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}})
	if _, in := tr.Current().Depth(pk(2)); in {
		t.Fatal("hop active before its x")
	}
	waitChange(t, tr.Changed(), 3*time.Second)
	if d, in := tr.Current().Depth(pk(2)); !in || d != 1 {
		t.Fatalf("hop not followed once active (depth %d, in %v)", d, in)
	}
}

func TestTrackerDebounceFollowsItsClock(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 2})
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	tr := startTracker(t, h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}, Clock: clock})
	changed := tr.Changed()
	tr.SetRoots([]string{pk(2)})
	select {
	case <-changed:
		t.Fatal("walked before the debounce passed on the tracker's clock")
	case <-time.After(100 * time.Millisecond):
	}
	clock.Advance(DefaultDebounce)
	waitChange(t, changed, time.Second)
	if got := tr.Current().Pubkeys(); !slices.Equal(got, []string{pk(2)}) {
		t.Fatalf("after the debounce %v", got)
	}
}

// A question's roots are followed (their people join the frontier's
// authors) without becoming roots, at most MaxQueryRoots of them, each for
// QueryRootsKept after it was last asked.
func TestQueryRootsAreFollowedForAWhileAndBounded(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 2}, [2]int{3, 4})
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	tr := startTracker(t, h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}, Clock: clock})
	walk := func(change func()) {
		t.Helper()
		changed, waiting := tr.Changed(), clock.Waiters()
		change()
		testutil.Eventually(t, "the tracker waiting on its clock", func() bool { return clock.Waiters() > waiting })
		// the debounce timer fires here and the walk's next wake is added:
		// counted against the waiters before the change, since the walk may
		// set its wake before this goroutine reads the count again
		clock.Advance(DefaultDebounce)
		waitChange(t, changed, time.Second)
		testutil.Eventually(t, "the next wake set", func() bool { return clock.Waiters() > waiting })
	}
	followed := func(n int) bool { _, in := tr.Current().Depth(pk(n)); return in }

	walk(func() { tr.AddQueryRoots([]string{pk(3)}) })
	if !followed(3) || !followed(4) {
		t.Fatalf("the question's root and its trusted person not followed: %v", tr.Current().Pubkeys())
	}
	if !slices.Equal(tr.Current().Roots, []string{pk(1)}) {
		t.Fatalf("a question's root became a root: %v", tr.Current().Roots)
	}

	clock.Advance(time.Second)
	var others []string
	for i := range MaxQueryRoots {
		others = append(others, pk(10+i))
	}
	walk(func() { tr.AddQueryRoots(others) })
	if followed(3) || followed(4) || !followed(10) {
		t.Fatalf("past %d query roots the least recently asked is still followed: %v", MaxQueryRoots, tr.Current().Pubkeys())
	}

	walk(func() { tr.AddQueryRoots([]string{pk(3)}) })
	if !followed(3) || followed(10) {
		t.Fatalf("asked again: %v", tr.Current().Pubkeys())
	}
	changed := tr.Changed()
	clock.Advance(QueryRootsKept)
	waitChange(t, changed, time.Second)
	if got := tr.Current().Pubkeys(); !slices.Equal(got, []string{pk(1), pk(2)}) {
		t.Fatalf("after %v without a question: %v", QueryRootsKept, got)
	}
}

// Refresh walks only when the last walk misses something: a Notify, a hop
// window that opened, a query root whose time ended.
func TestRefreshWalksOnlyWhenSomethingChanged(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 2})
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	tr := NewTracker(h, Config{Limits: settings.DefaultLimits(), Roots: []string{pk(1)}, Clock: clock})
	walked := func() bool {
		t.Helper()
		before := tr.Current()
		tr.Refresh()
		return tr.Current() != before
	}
	if !walked() {
		t.Fatal("the first Refresh did not walk")
	}
	if walked() {
		t.Fatal("a Refresh with nothing changed walked again")
	}

	later := trust(2, 3, "1")
	later.CreatedAt = 2
	later.ActiveFrom = clock.Now().Unix() + 60
	h.Apply([]*validation.Statement{later}, nil)
	tr.Notify()
	if !walked() || tr.Current().Size() != 2 {
		t.Fatalf("after a Notify: walked with %v", tr.Current().Pubkeys())
	}
	if walked() {
		t.Fatal("walked again before the hop's window opened")
	}
	clock.Advance(time.Minute)
	if !walked() || tr.Current().Size() != 3 {
		t.Fatalf("once the hop's window opened: %v", tr.Current().Pubkeys())
	}

	tr.AddQueryRoots([]string{pk(9)})
	if !walked() || walked() {
		t.Fatal("a query root: want one walk")
	}
	clock.Advance(QueryRootsKept)
	if !walked() {
		t.Fatal("a query root's time ended: no walk")
	}
}
