package store

import (
	"os"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/internal/testutil"
)

// The writer does not checkpoint (wal_autocheckpoint is off on it), so the
// database file grows only when the background checkpointer copies the WAL.
func TestCommitsReachTheDatabaseFileInTheBackground(t *testing.T) {
	s, path := openTemp(t)
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	evs := make([]*nostr.Event, 2000)
	for i := range evs {
		evs[i] = trustEvent(hex64("author", i%50), hex64("subject", i), "1", int64(1_700_000_000+i))
	}
	save(t, s, evs...)
	testutil.Eventually(t, "the WAL copied into the database file", func() bool { return size() > before+100_000 })
}
