package settings_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
)

const rootHex = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e"

// A change of several settings, relays and roots is one transaction with
// one revision bump on a real SQLite file (issue 22 item 2); a change that
// fails half way writes nothing; changes from two openers of one file at
// once lose nothing.
func TestModifyIsOneTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dtp.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	revision := func() int64 {
		n, err := st.Revision()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	before := revision()
	err = settings.Modify(st, func(s *settings.Settings) error {
		s.Limits.MaxDepth, s.Limits.FollowThreshold = 3, 60
		s.IntervalMinutes = 30
		s.Listen = "127.0.0.1:7448"
		return errors.Join(settings.AddRelay("wss://relay.example")(s), settings.AddRoot(rootHex)(s))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := revision() - before; got != 1 {
		t.Fatalf("one change bumped the revision %d times", got)
	}
	s, err := settings.Load(st)
	if err != nil || s.Limits.MaxDepth != 3 || s.IntervalMinutes != 30 || len(s.Relays) != 1 || len(s.Roots) != 1 {
		t.Fatalf("after the change: %+v %v", s, err)
	}

	// the relay is written before the bad limit is checked: nothing of it stays
	before = revision()
	err = settings.Modify(st, func(s *settings.Settings) error {
		s.Relays = append(s.Relays, "wss://second.example")
		s.Limits.Red = 90 // above the follow threshold
		return nil
	})
	if err == nil {
		t.Fatal("a red band above the follow threshold was accepted")
	}
	if s, _ := settings.Load(st); len(s.Relays) != 1 || revision() != before {
		t.Fatalf("a refused change left relays %v, revision +%d", s.Relays, revision()-before)
	}

	// two openers of the file, each adding allowed hosts (one JSON list) at
	// once: none is lost, as each change reads what it changes
	other, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		for j, s := range []*store.Store{st, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- settings.Modify(s, settings.AllowHost(fmt.Sprintf("h%d-%d.example", i, j)))
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s, _ := settings.Load(st); len(s.AllowedHosts) != 40 {
		t.Fatalf("%d allowed hosts after 40 concurrent additions", len(s.AllowedHosts))
	}
}
