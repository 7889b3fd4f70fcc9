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
				if hp, _ := v.HintedPubkeys(now, trusted); slices.Contains(hp, owner) != c.bound {
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
		// the claims the sync refreshes change then too (a settled pass
		// stands until then)
		if hp, next := v.HintedPubkeys(100, anyone); len(hp) != 0 || next != 500 {
			t.Fatalf("hinted pubkeys %v next %d, want none until 500", hp, next)
		}
		if hp, _ := v.HintedPubkeys(500, anyone); !slices.Equal(hp, []string{owner}) {
			t.Fatalf("hinted pubkeys at 500: %v", hp)
		}
	})
}

// A binding with one claimant is settled by one trusted statement active
// for good that hints it: it stops reading there (a popular account has
// thousands), and nothing the others' windows do can change it, so it
// reports no next change. Hinted only by statements with a window, it
// still reports when the first of them changes.
func TestOneClaimantSettledByAStatementForGood(t *testing.T) {
	const acct, now = "user:id:777", 100
	owner, other := pk(21), pk(22)
	claim := &validation.Claims{ID: pk(91), Author: owner, CreatedAt: 5, TwitterIDs: []string{"777"}}
	var authors []string
	for i := 1; i <= 50; i++ {
		authors = append(authors, pk(i))
	}
	cases := []struct {
		name      string
		stmts     func() []*validation.Statement
		owner     string
		wantNext  int64
		wantFound bool
	}{
		{"windowed hints, then one for good", func() []*validation.Statement {
			var out []*validation.Statement
			for i, a := range authors[:49] {
				out = append(out, st(a, "i", acct, "1", "", 1, hints(other), window(0, now+10+int64(i))))
			}
			return append(out, st(authors[49], "i", acct, "1", "", 1, hints(owner)))
		}, owner, 0, true},
		{"only windowed hints of the claimant", func() []*validation.Statement {
			return []*validation.Statement{
				st(authors[0], "i", acct, "1", "", 1, hints(owner), window(0, now+30)),
				st(authors[1], "i", acct, "1", "", 1, hints(owner), window(0, now+20)),
			}
		}, owner, now + 21, false}, // a window ends after its last second
		{"for good, but of a pubkey that claims nothing", func() []*validation.Statement {
			return []*validation.Statement{st(authors[0], "i", acct, "1", "", 1, hints(other))}
		}, "", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHeap()
			h.Apply(c.stmts(), []*validation.Claims{claim})
			h.View(func(v View) {
				n, ok := v.Subject('i', acct)
				if !ok {
					t.Fatal("no node for the account")
				}
				got, next := v.boundTo(n, now, anyone)
				gotKey := ""
				if got != NoNode {
					gotKey = v.Text(got)
				}
				if gotKey != c.owner || next != c.wantNext {
					t.Errorf("bound to %q, next %d; want %q, %d", gotKey, next, c.owner, c.wantNext)
				}
				_, _, found := v.trustedHintsUntil(n, now, anyone, owner)
				if found != c.wantFound {
					t.Errorf("stopped early: %v, want %v", found, c.wantFound)
				}
			})
		})
	}
}
