package store

import (
	"context"
	"slices"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/internal/testutil"
)

func TestStampsMatchQuery(t *testing.T) {
	s, _ := openTemp(t)
	held := queryFixture(t, s)
	for _, f := range []nostr.Filter{{}, {Kinds: []int{1}}, {Tags: nostr.TagMap{"s": {"x.com"}}, Limit: 5}} {
		got, err := s.Stamps(context.Background(), f, 20)
		if err != nil {
			t.Fatal(err)
		}
		want := testutil.Matching(held, f, 20)
		if len(got) != len(want) {
			t.Fatalf("%v: %d stamps, want %d", f, len(got), len(want))
		}
		for i, ev := range want {
			if got[i] != (Stamp{ev.CreatedAt, ev.ID}) {
				t.Fatalf("%v: stamp %d = %+v, want %d %s", f, i, got[i], ev.CreatedAt, ev.ID)
			}
		}
	}
	if got, _ := s.Stamps(context.Background(), nostr.Filter{IDs: []string{}}, 0); !slices.Equal(got, nil) {
		t.Fatalf("empty ids: %v", got)
	}
}
