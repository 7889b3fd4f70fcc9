package heap

import (
	"slices"
	"testing"

	"dtp-personal/engine/validation"
)

// TestOnlyTrustedActiveXScopedHintsBind: an X account is bound only through
// hints in active, non-delete, x.com-scoped 32009 statements by trusted
// authors (issue 9 item 10).
func TestOnlyTrustedActiveXScopedHintsBind(t *testing.T) {
	friend, stranger, owner := pk(1), pk(2), pk(21)
	const acct = "user:id:555"
	const now = 100
	claim := &validation.Claims{ID: pk(90), Author: owner, CreatedAt: 5, TwitterIDs: []string{"555"}}
	cases := []struct {
		name  string
		hint  *validation.Statement
		bound bool
	}{
		{"friend's x.com statement binds", st(friend, "i", acct, "1", "", 1, hints(owner)), true},
		{"friend's negative x.com statement binds", st(friend, "i", acct, "-1", "", 1, hints(owner)), true},
		{"stranger's statement does not bind", st(stranger, "i", acct, "1", "", 1, hints(owner)), false},
		{"delete does not bind", st(friend, "i", acct, "", "", 1, hints(owner)), false},
		{"unscoped statement does not bind", st(friend, "i", acct, "1", "", 1, hints(owner), scopes()), false},
		{"other scope does not bind", st(friend, "i", acct, "1", "", 1, hints(owner), scopes("github.com")), false},
		{"expired statement does not bind", st(friend, "i", acct, "1", "", 1, hints(owner), window(0, now-1)), false},
		{"not yet active statement does not bind", st(friend, "i", acct, "1", "", 1, hints(owner), window(now+1, 0)), false},
		{"rating does not bind", st(friend, "i", acct, "90", "", 1, hints(owner), rating), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHeap()
			// The friend's hop to the account carries no hint of its own.
			h.Apply([]*validation.Statement{st(friend, "i", acct, "1", "", 1, scopes("github.com", "x.com")), c.hint}, []*validation.Claims{claim})
			h.View(func(v View) {
				fn, _ := v.Pubkey(friend)
				trusted := func(n NodeID) bool { return n == fn }
				xn, _ := v.Subject('i', acct)
				hops, _ := v.Hops(fn, now, trusted, nil)
				var got []string
				for _, n := range slices.Compact(hops) { // both statements may hop to the owner
					got = append(got, v.Text(n))
				}
				if want := []string(nil); c.bound {
					if want = []string{owner}; !slices.Equal(got, want) {
						t.Fatalf("hops %v, want %v", got, want)
					}
				} else if len(got) != 0 {
					t.Fatalf("hops %v, want none", got)
				}
				if al := v.Aliases(xn, now, trusted); (len(al) == 1) != c.bound {
					t.Fatalf("aliases %v, bound %v", al, c.bound)
				}
				if b := v.Bindings(xn, now, trusted); (len(b) == 1 && b[0].State == StateBound) != c.bound {
					t.Fatalf("bindings %+v, bound %v", b, c.bound)
				}
				// the sync refreshes the claims of exactly the hints that can bind (item 14)
				if hp := v.HintedPubkeys(now, trusted); slices.Contains(hp, owner) != c.bound {
					t.Fatalf("hinted pubkeys %v, bound %v", hp, c.bound)
				}
			})
		})
	}
}

// TestHintWindowIsANextChange: a hint that starts binding later schedules
// the walk that sees it.
func TestHintWindowIsANextChange(t *testing.T) {
	friend, owner := pk(1), pk(21)
	h := newHeap()
	h.Apply([]*validation.Statement{
		st(friend, "i", "user:id:7", "1", "", 1),
		st(friend, "i", "user:id:7", "1", "", 1, hints(owner), window(500, 0)),
	}, []*validation.Claims{{ID: pk(90), Author: owner, CreatedAt: 5, TwitterIDs: []string{"7"}}})
	h.View(func(v View) {
		fn, _ := v.Pubkey(friend)
		if hops, next := v.Hops(fn, 100, anyone, nil); len(hops) != 0 || next != 500 {
			t.Fatalf("hops %v next %d, want none until 500", hops, next)
		}
		if hops, _ := v.Hops(fn, 500, anyone, nil); len(slices.Compact(hops)) != 1 {
			t.Fatalf("hops at 500: %v", hops)
		}
	})
}
