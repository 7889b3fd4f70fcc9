package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// loopbackPair is a real TCP connection on 127.0.0.1: the server end
// batching, the client end plain.
func loopbackPair(t *testing.T) (*batchingConn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return &batchingConn{Conn: server}, client
}

// readNow reads what arrives within a short wait.
func readNow(t *testing.T, c net.Conn, want int) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	buf := make([]byte, want)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read %d bytes: %v", want, err)
	}
	return buf
}

func nothingArrives(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	var b [1]byte
	if n, err := c.Read(b[:]); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read %d bytes (%v) while the writer held them", n, err)
	}
}

func TestBatchingConnSendsHeldWritesAtRelease(t *testing.T) {
	b, client := loopbackPair(t)
	if _, err := b.Write([]byte("now")); err != nil {
		t.Fatal(err)
	}
	if got := readNow(t, client, 3); string(got) != "now" {
		t.Fatalf("unheld write arrived as %q", got)
	}
	b.hold()
	for _, w := range []string{"one,", "two,", "three"} {
		if _, err := b.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	nothingArrives(t, client)
	if err := b.release(); err != nil {
		t.Fatal(err)
	}
	if got := readNow(t, client, 13); string(got) != "one,two,three" {
		t.Fatalf("released %q", got)
	}
}

func TestBatchingConnBoundsWhatItHolds(t *testing.T) {
	b, client := loopbackPair(t)
	b.hold()
	small := bytes.Repeat([]byte("a"), 10)
	big := bytes.Repeat([]byte("b"), batchMax)
	for _, w := range [][]byte{small, big} {
		if _, err := b.Write(w); err != nil {
			t.Fatal(err)
		}
	}
	// the big write did not fit: what was held went first, then the big one
	got := readNow(t, client, len(small)+len(big))
	if !bytes.Equal(got, append(append([]byte{}, small...), big...)) {
		t.Fatal("held and overflowing writes arrived out of order")
	}
	if err := b.release(); err != nil {
		t.Fatal(err)
	}
}

// Over a real WebSocket, a burst of pushes gets every OK in order while the
// writer batches them, and pings sent meanwhile are answered: the library's
// pongs go out with the batch, not after it.
func TestBatchedRepliesKeepOrderAndPongs(t *testing.T) {
	srv := httptest.NewServer(New(Config{Ingest: fuzzPorts{}, Events: fuzzPorts{}}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	const n = 3000
	ids := make(chan string, n)
	go func() {
		for i := range n {
			id := fmt.Sprintf("%064x", i)
			ids <- id
			frame := fmt.Sprintf(`["EVENT",{"id":%q,"pubkey":"ab","created_at":1,"kind":1,"tags":[],"content":"","sig":"cd"}]`, id)
			if ws.Write(ctx, websocket.MessageText, []byte(frame)) != nil {
				return
			}
		}
	}()
	ordered := make(chan error, 1)
	go func() {
		// reads on after the OKs: a ping's pong is read by a reader
		defer func() {
			for {
				if _, _, err := ws.Read(ctx); err != nil {
					return
				}
			}
		}()
		for range n {
			_, data, err := ws.Read(ctx)
			if err != nil {
				ordered <- err
				return
			}
			var reply []any
			if err := json.Unmarshal(data, &reply); err != nil || len(reply) != 4 || reply[0] != "OK" || reply[1] != <-ids {
				ordered <- fmt.Errorf("reply %s out of order or not an OK", data)
				return
			}
		}
		ordered <- nil
	}()
	for i := range 20 {
		if err := ws.Ping(ctx); err != nil {
			t.Fatalf("ping %d during the burst: %v", i, err)
		}
	}
	if err := <-ordered; err != nil {
		t.Fatal(err)
	}
}
