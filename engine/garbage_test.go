package engine

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
)

// TestGarbageNeverWedgesTheServer throws malformed frames at the server from
// several connections and checks that a well-behaved connection keeps being
// served throughout, and that every malformed frame is answered or closes
// only its own connection.
func TestGarbageNeverWedgesTheServer(t *testing.T) {
	t.Parallel()
	_, url := startEngine(t, Options{})
	good := dialRaw(t, url)
	alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2)
	rng := rand.New(rand.NewPCG(1, 2))

	randomBytes := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	}
	valid := `["EVENT",` + alice.Trust(fixture.P(bob.Pubkey), "1", t0).String() + `]`
	frames := []string{
		randomBytes(64), randomBytes(4096), "", "[", "[]", "{}", "null", "42", `"EVENT"`,
		`["EVENT"]`, `["EVENT",42]`, `["EVENT",{"id":1,"kind":"x"}]`, `["EVENT",{"tags":"nope"}]`,
		`["EVENT",{"id":"` + strings.Repeat("z", 64) + `","pubkey":"","sig":"","kind":32009,"tags":[[1,2]]}]`,
		valid[:len(valid)/2], `["REQ"]`, `["REQ",42,{}]`, `["REQ","s",{"kinds":"x"}]`, `["REQ","s",[]]`,
		`["REQ","` + strings.Repeat("s", 100) + `",{}]`, `["COUNT","c",{"authors":[1]}]`, `["CLOSE"]`,
		`["CLOSE",1]`, `["RESOLVE"]`, `["RESOLVE","r",{"subject":42}]`, `["ROOTS","x"]`, `["NOPE"]`,
		`[null]`, `[{"a":1}]`, strings.Repeat("[", 10000),
	}
	for i := 0; i < 3; i++ {
		bad := dialRaw(t, url)
		for _, f := range frames {
			if err := bad.write(f); err != nil {
				t.Fatalf("server dropped a connection over %q: %v", short(f), err)
			}
			msg := bad.read()
			if kind := str(msg[0]); kind != "NOTICE" && kind != "CLOSED" && kind != "OK" {
				t.Fatalf("frame %q answered with %s, want NOTICE, CLOSED or OK", short(f), kind)
			}
		}
		// the good connection is served between rounds of garbage
		ev := alice.Trust(fixture.P(fixture.NewAuthor(10+i).Pubkey), "1", t0+int64(i))
		if ok, msg := good.push(ev); !ok {
			t.Fatalf("good connection refused after garbage: %s", msg)
		}
	}

	// a 10 MB frame closes only its own connection
	huge := dialRaw(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = huge.ws.Write(ctx, websocket.MessageText, []byte(`["EVENT",{"content":"`+strings.Repeat("x", 10<<20)+`"}]`))
	if _, _, err := huge.ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("10 MB frame: got %v, want close status 1009 (message too big)", err)
	}
	if ok, msg := good.push(alice.Trust(fixture.P(fixture.NewAuthor(99).Pubkey), "1", t0)); !ok {
		t.Fatalf("good connection refused after a 10 MB frame: %s", msg)
	}
	got, err := dialRelay(t, ctx, url).Page(ctx, nostr.Filter{Authors: []string{alice.Pubkey}}) // a new connection after garbage
	if err != nil || len(got) != 4 {
		t.Fatalf("after garbage: query returned %d events (%v), want the 4 pushed", len(got), err)
	}
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
