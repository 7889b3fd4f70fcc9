package server

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync"
)

// batchingConn lets a connection's writer send several messages in one write
// to the socket. coder/websocket flushes each message to the net.Conn, so a
// push cost one write syscall per OK, about 100 bytes each. While the writer
// holds the conn (it has more messages queued), writes collect in buf, and
// release sends them at once. Other writers (the library's pongs and close
// frames) go out at the next release, or at once when nothing is held.
type batchingConn struct {
	net.Conn
	mu      sync.Mutex
	holding bool
	buf     []byte
}

// batchMax bounds what is collected before it is written anyway.
const batchMax = 64 << 10

func (b *batchingConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.holding && len(b.buf)+len(p) <= batchMax {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	if err := b.flushLocked(); err != nil {
		return 0, err
	}
	return b.Conn.Write(p)
}

// hold collects writes until release.
func (b *batchingConn) hold() {
	b.mu.Lock()
	b.holding = true
	b.mu.Unlock()
}

// release writes what was collected and stops collecting.
func (b *batchingConn) release() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.holding = false
	return b.flushLocked()
}

func (b *batchingConn) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.Conn.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// batchingWriter hands the WebSocket library a batchingConn when it hijacks
// the HTTP connection.
type batchingWriter struct {
	http.ResponseWriter
	conn *batchingConn
}

func (w *batchingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("server: connection cannot be taken over for WebSocket")
	}
	nc, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	// net/http has written the upgrade response by now; flush what may
	// remain before the buffer writes to the batching conn instead
	if err := brw.Writer.Flush(); err != nil {
		nc.Close()
		return nil, nil, err
	}
	w.conn = &batchingConn{Conn: nc}
	brw.Writer.Reset(w.conn)
	return w.conn, brw, nil
}
