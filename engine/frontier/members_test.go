package frontier

import (
	"slices"
	"testing"

	"dtp-personal/engine/settings"
)

// Each depth's members, each with the author whose hop found them.
func TestAtDepthSaysWhoBroughtEachIn(t *testing.T) {
	h := graph(settings.DefaultLimits(), [2]int{1, 2}, [2]int{1, 3}, [2]int{2, 4}, [2]int{3, 5})
	r := walk(h, Params{Roots: []string{pk(1)}, Limits: settings.DefaultLimits(), Now: 100})
	want := [][]Member{
		{{Pubkey: pk(1), Depth: 0}},
		{{Pubkey: pk(2), Depth: 1, BroughtBy: pk(1)}, {Pubkey: pk(3), Depth: 1, BroughtBy: pk(1)}},
		{{Pubkey: pk(4), Depth: 2, BroughtBy: pk(2)}, {Pubkey: pk(5), Depth: 2, BroughtBy: pk(3)}},
	}
	for d, w := range want {
		if got := r.AtDepth(d); !slices.Equal(got, w) {
			t.Errorf("depth %d: %+v, want %+v", d, got, w)
		}
	}
	if got := r.AtDepth(3); got != nil {
		t.Errorf("depth past the walk: %+v", got)
	}
}
