package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/server"
)

// nip77Fixture stores n trust statements in a fresh engine.
func nip77Fixture(t *testing.T, limits server.Limits, n int) (string, []*nostr.Event) {
	eng, url := startEngine(t, Options{ServerLimits: limits})
	authors := []fixture.Author{fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)}
	evs := make([]*nostr.Event, n)
	for i := range evs {
		evs[i] = authors[i%3].Trust(fixture.P(fixture.NewAuthor(10+i).Pubkey), "1", int64(t0+i))
		if r, err := eng.Submit(context.Background(), evs[i], "push"); err != nil || !r.OK() {
			t.Fatalf("submit: %+v %v", r, err)
		}
	}
	return url, evs
}

// negOpen starts a reconciliation by hand over a raw socket, so the wire
// (NEG-MSG, NEG-ERR) is checked as sent.
func negOpen(c *rawClient, subID string, f nostr.Filter, vec *vector.Vector) (*negentropy.Negentropy, []json.RawMessage) {
	vec.Seal()
	neg := negentropy.New(vec, 1<<20)
	b, _ := json.Marshal([]any{"NEG-OPEN", subID, f, neg.Start()})
	if err := c.write(string(b)); err != nil {
		c.t.Fatal(err)
	}
	return neg, c.read()
}

func TestNIP77ServerWireAndLimits(t *testing.T) {
	t.Parallel()
	limits := server.DefaultLimits()
	limits.MaxNegSessions, limits.MaxNegItems = 1, 20
	url, evs := nip77Fixture(t, limits, 30)
	c := dialRaw(t, url)

	// a filter over 20 events is refused, with NIP-77's name for the error
	_, reply := negOpen(c, "big", nostr.Filter{Kinds: []int{32009}}, vector.New())
	if str(reply[0]) != "NEG-ERR" || str(reply[1]) != "big" || !strings.HasPrefix(str(reply[2]), "blocked: this query is too big") {
		t.Fatalf("too big: %s", reply)
	}
	// 10 events: the client holding 5 of them learns the other 5
	f := nostr.Filter{Kinds: []int{32009}, Authors: []string{evs[0].PubKey}}
	vec := vector.New()
	for i := 0; i < 15; i += 3 { // author 0 wrote evs[0], evs[3], ...
		vec.Insert(evs[i].CreatedAt, evs[i].ID)
	}
	neg, reply := negOpen(c, "a", f, vec)
	var missing []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for id := range neg.HaveNots { // closed by the client's last Reconcile
			missing = append(missing, id)
		}
	}()
	for str(reply[0]) == "NEG-MSG" {
		next, err := neg.Reconcile(str(reply[2]))
		if err != nil {
			t.Fatal(err)
		}
		if next == "" {
			break
		}
		c.write(`["NEG-MSG","a","` + next + `"]`)
		reply = c.read()
	}
	if str(reply[0]) != "NEG-MSG" {
		t.Fatalf("reconcile: %s", reply)
	}
	// a second session on the connection is over the limit
	if _, reply = negOpen(c, "b", f, vector.New()); str(reply[0]) != "NEG-ERR" || !strings.HasPrefix(str(reply[2]), "blocked: 1 open") {
		t.Fatalf("second session: %s", reply)
	}
	c.write(`["NEG-CLOSE","a"]`)
	c.write(`["NEG-MSG","a","6100"]`)
	if reply = c.read(); str(reply[0]) != "NEG-ERR" || !strings.HasPrefix(str(reply[2]), "closed:") {
		t.Fatalf("after NEG-CLOSE: %s", reply)
	}
	<-done
	if len(missing) != 5 {
		t.Fatalf("missing %d ids, want 5", len(missing))
	}
}

// Every NEG-MSG the server sends fits the max_message_length it advertises:
// go-nostr's frame limit counts bytes before hex doubles them. A client
// holding nothing gets the server's ids in as many frames as that takes.
func TestNIP77FramesStayWithinMaxMessageLength(t *testing.T) {
	t.Parallel()
	limits := server.DefaultLimits()
	limits.MaxMessageBytes = 16 << 10
	const n = 800 // 25,600 bytes of ids: more than one frame
	url, _ := nip77Fixture(t, limits, n)
	c := dialRaw(t, url)
	neg, reply := negOpen(c, "all", nostr.Filter{Kinds: []int{32009}}, vector.New())
	got := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range neg.HaveNots {
			got++
		}
	}()
	frames := 0
	for {
		if str(reply[0]) != "NEG-MSG" {
			t.Fatalf("reply %s", reply)
		}
		frames++
		if size := frameSize(reply); size > limits.MaxMessageBytes {
			t.Fatalf("NEG-MSG %d is %d bytes, over the advertised max_message_length %d", frames, size, limits.MaxMessageBytes)
		}
		next, err := neg.Reconcile(str(reply[2]))
		if err != nil {
			t.Fatal(err)
		}
		if next == "" {
			break
		}
		if err := c.write(`["NEG-MSG","all","` + next + `"]`); err != nil {
			t.Fatal(err)
		}
		reply = c.read()
	}
	<-done
	if got != n || frames < 3 {
		t.Fatalf("learned %d of %d ids in %d frames", got, n, frames)
	}
}

// frameSize is the length of the JSON array msg was read from.
func frameSize(msg []json.RawMessage) int {
	size := 1 + len(msg) // brackets and commas
	for _, m := range msg {
		size += len(m)
	}
	return size
}
