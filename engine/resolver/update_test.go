package resolver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"dtp-personal/engine/frontier"
	"dtp-personal/engine/heap"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/validation"
)

// TestCaughtUpWalkIsAFreshWalk applies random webs (with X accounts bound by
// hints and claims) in small batches and brings walks of several bands up
// to date after each (catchUp): every node's depth, counts and parent, and
// the opinions the walk read, must be what a walk computed afresh finds. A
// catchUp that gives up is replaced by a fresh walk, as the cache does.
func TestCaughtUpWalkIsAFreshWalk(t *testing.T) {
	const now = 100
	caught, gaveUp := 0, 0
	for web := range randomWebs(16, 31) {
		seed, rng, world := web.seed, web.rng, web.world
		stmts, claims := withBindings(rng, world)
		h := heap.New(settings.DefaultLimits())
		params := []walkParams{
			{roots: strings.Join(world.roots, ","), maxDegree: 4, threshold: 75, scope: "x.com"},
			{roots: strings.Join(world.roots, ","), maxDegree: 5, threshold: 1, context: "development:go"},
			{roots: strings.Join(world.roots, ","), maxDegree: 3, threshold: 50},
		}
		walks := make([]*walk, len(params))
		versions := make([]uint64, len(params))
		for start := 0; start < len(stmts); {
			end := min(start+1+rng.IntN(12), len(stmts))
			var cl []*validation.Claims
			if rng.IntN(4) == 0 && len(claims) > 0 {
				cl, claims = claims[:1], claims[1:]
			}
			h.Apply(stmts[start:end], cl)
			start = end
			h.View(func(v heap.View) {
				for i, p := range params {
					fresh := newWalk(v, strings.Split(p.roots, ","), p, now)
					switch {
					case walks[i] == nil:
					case walks[i].catchUp(v, versions[i], now):
						caught++
						if diff := walkDiff(walks[i], fresh); diff != "" {
							t.Fatalf("seed %d params %+v after %d statements: %s", seed, p, start, diff)
						}
						versions[i] = v.Version()
						continue
					default:
						gaveUp++
					}
					walks[i], versions[i] = fresh, v.Version()
				}
			})
		}
	}
	t.Logf("%d walks brought up to date, %d computed again", caught, gaveUp)
	if caught < 10*gaveUp {
		t.Fatalf("catchUp gave up %d times for %d it finished: too often to spare walks", gaveUp, caught)
	}
}

// withBindings shuffles the web's statements and adds X accounts bound by
// trusted hints: statements about user:id:N, some naming a person's npub,
// and 10011 claims of those persons.
func withBindings(rng *rand.Rand, world webWorld) ([]*validation.Statement, []*validation.Claims) {
	stmts := slices.Clone(world.stmts)
	var claims []*validation.Claims
	for i := range 8 {
		owner := fmt.Sprintf("%064x", 500+rng.IntN(36))
		account := "user:id:" + strconv.Itoa(900+i)
		for k := range 2 + rng.IntN(4) {
			s := &validation.Statement{Kind: validation.KindTrust, ID: fmt.Sprintf("%064x", rng.Uint64()),
				Author: fmt.Sprintf("%064x", 500+rng.IntN(36)), CreatedAt: 2, SubjectTag: 'i', Subject: account,
				Value: "1", Scopes: []string{"x.com"}}
			if k%2 == 0 { // the others speak of the account without naming its owner
				s.BoundHints = []string{owner}
			}
			stmts = append(stmts, s)
		}
		claims = append(claims, &validation.Claims{ID: fmt.Sprintf("%064x", rng.Uint64()), Author: owner, CreatedAt: int64(3 + i),
			TwitterIDs: []string{strconv.Itoa(900 + i)}})
	}
	rng.Shuffle(len(stmts), func(i, j int) { stmts[i], stmts[j] = stmts[j], stmts[i] })
	return stmts, claims
}

// walkDiff describes the first difference between two walks over one heap.
func walkDiff(got, want *walk) string {
	for n := range want.nodes {
		g, w := reach{depth: -1}, want.nodes[n]
		if n < len(got.nodes) {
			g = got.nodes[n]
		}
		if !w.followed {
			g.parent, w.parent = heap.NoNode, heap.NoNode // only a queued node has a parent
		}
		if g.depth < 0 && w.depth < 0 {
			continue
		}
		if g != w {
			return fmt.Sprintf("node %d: %+v, want %+v", n, g, w)
		}
	}
	if len(got.read) != len(want.read) {
		return fmt.Sprintf("read %d authors, want %d", len(got.read), len(want.read))
	}
	for a, read := range want.read {
		if fmt.Sprint(got.read[a]) != fmt.Sprint(read) {
			return fmt.Sprintf("author %d read %v, want %v", a, got.read[a], read)
		}
	}
	return ""
}

// Questions asked while commits land share walks that they bring up to date
// (run under -race): every answer must be the reference's answer for the
// statements applied at the graphVersion it reports.
func TestAnswersDuringCommitsAreOfTheirVersion(t *testing.T) {
	const now = 100
	rng := rand.New(rand.NewPCG(7, 31))
	world := randomWeb(rng)
	stmts := slices.Clone(world.stmts)
	rng.Shuffle(len(stmts), func(i, j int) { stmts[i], stmts[j] = stmts[j], stmts[i] })
	limits := settings.DefaultLimits()
	h := heap.New(limits)
	tr := frontier.NewTracker(h, frontier.Config{Limits: limits, Roots: world.roots})
	tr.Recompute() // the roots answers walk from
	res := New(h, tr, nil, nil)
	res.now = func() time.Time { return time.Unix(now, 0) }

	var mu sync.Mutex
	applied := map[uint64]int{0: 0} // graph version -> statements applied
	type asked struct {
		subject subjectRef2
		answer  Answer
	}
	var answers []asked
	done := make(chan struct{})
	var askers sync.WaitGroup
	for g := range 4 {
		askers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				subject := world.subjects[(g*7+i)%len(world.subjects)]
				a, err := res.Resolve(context.Background(), Query{Subject: subject.value, Scope: "x.com"})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				answers = append(answers, asked{subject, a})
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
			}
		})
	}
	for start := 0; start < len(stmts); start += 5 {
		end := min(start+5, len(stmts))
		h.Apply(stmts[start:end], nil)
		mu.Lock()
		applied[h.Version()] = end
		mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	close(done)
	askers.Wait()
	refs := map[int]*reference{}
	for _, x := range answers {
		n, ok := applied[x.answer.GraphVersion]
		if !ok {
			t.Fatalf("an answer reports graph version %d, which no commit made", x.answer.GraphVersion)
		}
		if refs[n] == nil {
			refs[n] = newReference(stmts[:n], now)
		}
		want := refs[n].answer(world.roots, x.subject, "", "x.com", DefaultBand)
		if diff := compareAnswers(x.answer, want); diff != "" {
			t.Fatalf("subject %s at version %d (%d statements): %s", x.subject.value, x.answer.GraphVersion, n, diff)
		}
	}
	t.Logf("%d answers over %d versions, %d walks computed, %d brought up to date", len(answers), len(refs),
		res.walks.computed.Load(), res.walks.caughtUp.Load())
}
