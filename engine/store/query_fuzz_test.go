package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/internal/testutil"
)

// FuzzQueryMatchesReference parses arbitrary filter JSON as a REQ does and
// checks that the store's SQL answers it as the reference matcher does
// (NIP-01, newest first), and that Count and Stamps (NIP-77) agree. Tag keys that are not one
// letter are left out: they are never indexed and match nothing by design
// (TestQueryNonLetterTagMatchesNothing).
func FuzzQueryMatchesReference(f *testing.F) {
	s, _ := openTemp(f)
	held := queryFixture(f, s)
	a0, a1 := hex64("a0"), hex64("a1")
	for _, seed := range []string{
		`{}`, `{"limit":0}`, `{"limit":5}`, `{"ids":["` + held[3].ID + `","` + held[9].ID + `"]}`,
		`{"authors":["` + a0 + `"],"kinds":[1,32009],"since":1002,"until":1006}`,
		`{"#p":["` + a1 + `"],"#s":["x.com"],"limit":3}`,
		`{"#i":["user:id:0","user:id:2"],"#I":["upper"]}`,
		`{"kinds":[],"#p":[]}`, `{"since":1008,"until":1001}`, `{"#d":["slot2"],"kinds":[32009]}`,
		`{"#l":["unindexed"],"kinds":[1]}`,
	} {
		f.Add(seed, uint8(0))
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, filterJSON string, max uint8) {
		var fl nostr.Filter
		if json.Unmarshal([]byte(filterJSON), &fl) != nil {
			return
		}
		for name := range fl.Tags {
			if !isTagLetter(name) {
				return
			}
		}
		got, err := s.Query(ctx, fl, int(max))
		if err != nil {
			t.Fatalf("%s: %v", filterJSON, err)
		}
		if want := ids(testutil.Matching(held, fl, int(max))); !slices.Equal(ids(got), want) {
			t.Fatalf("%s max %d: Query = %v\nwant %v", filterJSON, max, ids(got), want)
		}
		stamps, err := s.Stamps(ctx, fl, int(max))
		if err != nil || len(stamps) != len(got) {
			t.Fatalf("%s max %d: %d stamps (%v), want %d", filterJSON, max, len(stamps), err, len(got))
		}
		want := make([]Stamp, len(got))
		for i, ev := range got {
			want[i] = Stamp{ev.CreatedAt, ev.ID}
		}
		if fl.Limit == 0 { // no order, and past max any max of the matching ones
			matching := map[Stamp]bool{}
			for _, ev := range testutil.Matching(held, fl, 0) {
				matching[Stamp{ev.CreatedAt, ev.ID}] = true
			}
			for i, st := range stamps {
				if !matching[st] || slices.Contains(stamps[:i], st) {
					t.Fatalf("%s max %d: stamp %d = %+v is not one of the matching events, or is repeated", filterJSON, max, i, st)
				}
			}
		} else if !slices.Equal(stamps, want) {
			t.Fatalf("%s max %d: stamps %+v, want %+v", filterJSON, max, stamps, want)
		}
		all := fl
		all.Limit, all.LimitZero = 0, false
		n, err := s.Count(ctx, fl)
		if want := len(testutil.Matching(held, all, 0)); err != nil || n != int64(want) {
			t.Fatalf("%s: Count = %d (%v), want %d", filterJSON, n, err, want)
		}
	})
}
