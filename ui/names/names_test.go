package names

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/testrelay"
)

func profile(a fixture.Author, at int64, content string) *nostr.Event {
	return a.Sign(&nostr.Event{Kind: 0, CreatedAt: nostr.Timestamp(at), Content: content, Tags: nostr.Tags{}})
}

func openCache(t *testing.T, max int) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), FileName), max)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Names come from the relays' newest signed profiles; a forged one, a
// profile of someone not asked about and a silent relay change nothing.
func TestRefreshFindsNewestSignedNames(t *testing.T) {
	alice, bob, carol, dave := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3), fixture.NewAuthor(4)
	forged := profile(carol, 300, `{"name":"Mallory"}`)
	forged.Content = `{"name":"Not Carol"}` // signature no longer matches
	r1 := testrelay.Start(t,
		profile(alice, 100, `{"name":"alice_old"}`),
		profile(bob, 100, `{"display_name":"Bob <b>B</b>","name":"bob"}`),
		forged,
		profile(dave, 100, `{"name":"Dave"}`), // not asked
	)
	r2 := testrelay.Start(t, profile(alice, 200, `{"display_name":"Alice\nA.","name":"alice"}`))
	silent := testrelay.Stalled(t)

	c := openCache(t, 0)
	asked := []string{alice.Pubkey, bob.Pubkey, carol.Pubkey}
	n, err := c.Refresh(context.Background(), []string{silent, r1, r2}, asked, time.Second)
	if err != nil || n != 2 {
		t.Fatalf("Refresh found %d names, %v; want 2", n, err)
	}
	got, err := c.Names(append(asked, dave.Pubkey))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{alice.Pubkey: "Alice A.", bob.Pubkey: "Bob B"}
	if len(got) != len(want) || got[alice.Pubkey] != want[alice.Pubkey] || got[bob.Pubkey] != want[bob.Pubkey] {
		t.Errorf("names = %q, want %q", got, want)
	}
	// everyone asked about, found or not, is fresh for a day
	if stale, _ := c.Stale(asked); len(stale) != 0 {
		t.Errorf("stale right after a refresh: %q", stale)
	}
	c.now = func() time.Time { return time.Now().Add(RefreshAfter + time.Minute) }
	if stale, _ := c.Stale(asked); len(stale) != 3 {
		t.Errorf("stale a day later: %q, want all 3", stale)
	}
}

// Nobody answering is not a refresh: the people are asked again next time.
func TestRefreshWithoutAnswerTriesAgain(t *testing.T) {
	silent := testrelay.Stalled(t)
	c := openCache(t, 0)
	pk := fixture.NewAuthor(1).Pubkey
	if _, err := c.Refresh(context.Background(), []string{silent}, []string{pk}, 200*time.Millisecond); err == nil {
		t.Error("a relay that never answered gave no error")
	}
	if stale, _ := c.Stale([]string{pk}); len(stale) != 1 {
		t.Errorf("after no answer stale = %q, want the person asked again", stale)
	}
}

// The cache holds at most max people, dropping those fetched longest ago.
func TestCacheIsBounded(t *testing.T) {
	var authors []fixture.Author
	var evs []*nostr.Event
	for i := range 5 {
		a := fixture.NewAuthor(10 + i)
		authors = append(authors, a)
		evs = append(evs, profile(a, 100, `{"name":"p"}`))
	}
	r := testrelay.Start(t, evs...)
	c := openCache(t, 3)
	base := time.Now()
	for i, a := range authors {
		c.now = func() time.Time { return base.Add(time.Duration(i) * time.Second) }
		if _, err := c.Refresh(context.Background(), []string{r}, []string{a.Pubkey}, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := c.Len(); n != 3 {
		t.Errorf("cache holds %d people, want its bound 3", n)
	}
	got, _ := c.Names([]string{authors[0].Pubkey, authors[4].Pubkey})
	if _, kept := got[authors[0].Pubkey]; kept || got[authors[4].Pubkey] != "p" {
		t.Errorf("kept %q: want the oldest fetch dropped and the newest kept", got)
	}
}

func TestDisplayName(t *testing.T) {
	for content, want := range map[string]string{
		`{"display_name":"Alice","name":"alice"}`: "Alice",
		`{"name":"bob"}`:                         "bob",
		`{"displayName":"Carol"}`:                "Carol",
		`{"display_name":"  ","name":"dave"}`:    "dave",
		`{"name":"<script>x</script>Eve\u202e"}`: "xEve",
		`not json`:                               "",
		`{"about":"no name"}`:                    "",
		`{"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…",
	} {
		if got := displayName(content); got != want {
			t.Errorf("displayName(%s) = %q, want %q", content, got, want)
		}
	}
}

// Close stops the background fetches and waits for them: none outlives the
// window or writes to a closed file (issue 28 §3: they ran on, unknown to
// whoever closed the cache, for up to a relay timeout each).
func TestCloseStopsBackgroundFetches(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), FileName), 0)
	if err != nil {
		t.Fatal(err)
	}
	pk := fixture.NewAuthor(1).Pubkey
	called := make(chan struct{}, 1)
	c.Want([]string{testrelay.Stalled(t)}, []string{pk}, func() { called <- struct{}{} })
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if stale, _ := c.Stale([]string{pk}); len(stale) == 0 {
			break // being fetched
		}
		if time.Now().After(deadline) {
			t.Fatal("the fetch never started")
		}
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v: it waited for the relay's timeout", took)
	}
	if fetching := fetchGoroutines(); fetching > 0 {
		t.Errorf("%d background fetches still run after Close", fetching)
	}
	c.Want([]string{testrelay.Stalled(t)}, []string{pk}, nil) // after Close: nothing starts
	if fetching := fetchGoroutines(); fetching > 0 {
		t.Errorf("Want after Close started %d fetches", fetching)
	}
	select {
	case <-called:
		t.Error("a fetch stopped by Close reported names")
	default:
	}
}

// fetchGoroutines counts the goroutines running a Want's fetch.
func fetchGoroutines() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "names.(*Cache).Want.func")
}
