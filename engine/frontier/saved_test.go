package frontier

import (
	"reflect"
	"testing"
	"time"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// A walk saved with the heap is taken by a start that has the same heap,
// roots and limits, and is the walk that start would have made; any other
// start walks again.
func TestSavedWalkIsAdoptedOnlyWhereItHolds(t *testing.T) {
	limits := settings.DefaultLimits()
	limits.MaxAuthorsPerLevel = 3 // a truncated level, reported
	h := graph(limits, [2]int{1, 2}, [2]int{1, 3}, [2]int{1, 4}, [2]int{1, 5}, [2]int{2, 6}, [2]int{6, 7})
	later := trust(7, 8, "1")
	clock := faultrelay.NewClock(time.Unix(1_700_000_000, 0))
	later.ActiveFrom = clock.Now().Unix() + 60 // a hop window the walk saw
	h.Apply([]*validation.Statement{later}, nil)
	roots := []string{pk(1), pk(99)} // pk(99) is in no statement: a root with no heap node
	cfg := Config{Limits: limits, Roots: roots, Clock: clock}
	walked := NewTracker(h, cfg)
	walked.Recompute()
	saved := walked.Saved()
	if saved == nil {
		t.Fatal("nothing saved")
	}
	want := walked.Current()
	if len(want.Truncation) == 0 || want.NextChange == 0 {
		t.Fatalf("the fixture should truncate and see a window: %+v", want)
	}

	start := NewTracker(h, cfg)
	changed := start.Changed()
	if !start.Adopt(saved) {
		t.Fatal("the saved walk was not adopted by a start with the same heap, roots and limits")
	}
	if !reflect.DeepEqual(start.Current(), want) {
		t.Fatalf("adopted walk differs:\n%+v\nwant\n%+v", start.Current(), want)
	}
	select {
	case <-changed:
	default:
		t.Fatal("adopting did not announce the frontier")
	}
	if start.Adopt(saved) {
		t.Fatal("adopted over a walk already made")
	}

	otherRoots := cfg
	otherRoots.Roots = []string{pk(2)}
	otherLimits := cfg
	otherLimits.Limits.MaxDepth--
	for name, refuse := range map[string]func() bool{
		"other roots":  func() bool { return NewTracker(h, otherRoots).Adopt(saved) },
		"other limits": func() bool { return NewTracker(h, otherLimits).Adopt(saved) },
		"damaged":      func() bool { return NewTracker(h, cfg).Adopt(saved[:len(saved)-1]) },
		"other heap": func() bool {
			moved := graph(limits, [2]int{1, 2})
			moved.Apply([]*validation.Statement{trust(1, 3, "1"), trust(2, 9, "1"), trust(9, 10, "1")}, nil)
			return NewTracker(moved, cfg).Adopt(saved)
		},
	} {
		if refuse() {
			t.Errorf("%s: the saved walk was adopted", name)
		}
	}
	clock.Advance(time.Minute)
	if NewTracker(h, cfg).Adopt(saved) {
		t.Error("adopted after a hop window it saw opened")
	}

	// a change not walked yet (a close before the debounce): the walk saved
	// is of the heap as it is
	h.Apply([]*validation.Statement{trust(3, 20, "1")}, nil)
	walked.Notify()
	start = NewTracker(h, cfg)
	fresh := NewTracker(h, cfg)
	fresh.Recompute()
	if !start.Adopt(walked.Saved()) || !reflect.DeepEqual(start.Current(), fresh.Current()) {
		t.Fatalf("saved with a change not walked: %v, want %v", start.Current().Pubkeys(), fresh.Current().Pubkeys())
	}

	walked.AddQueryRoots([]string{pk(6)})
	walked.Recompute()
	if walked.Saved() != nil {
		t.Error("a walk following a question's roots was saved")
	}
}
