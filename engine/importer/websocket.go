package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
)

// Window is how many events a WebSocket transport keeps awaiting their OK.
const Window = 512

// rateLimitPause is the wait before an event the server's push rate limit
// refused is sent again.
const rateLimitPause = 50 * time.Millisecond

// WebSocket is a Transport to a server's WebSocket: each event is an EVENT
// frame, answered by the server's OK. A refusal by the server's rate limit
// (before its pipeline) is not an answer: the event is sent again.
type WebSocket struct {
	ws      *websocket.Conn
	ctx     context.Context
	cancel  context.CancelFunc
	room    chan struct{} // one token per outstanding event
	mu      sync.Mutex
	waiting map[string]outstanding
	err     error
}

type outstanding struct {
	frame []byte
	done  func(ingest.Result)
}

// DialWebSocket connects to url (ws:// or wss://) with header (e.g. the
// owner's Authorization, so the push rate limit does not apply).
func DialWebSocket(ctx context.Context, url string, header http.Header) (*WebSocket, error) {
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, fmt.Errorf("connect to the running server: %w", err)
	}
	ws.SetReadLimit(1 << 20)
	w := &WebSocket{ws: ws, room: make(chan struct{}, Window), waiting: map[string]outstanding{}}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	go w.read()
	return w, nil
}

// Send writes ev's EVENT frame once fewer than Window events await an OK. A
// second copy of an event still awaiting its OK is answered as a duplicate.
func (w *WebSocket) Send(ctx context.Context, ev *nostr.Event, line []byte, done func(ingest.Result)) error {
	select {
	case w.room <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.ctx.Done():
		return w.Err()
	}
	w.mu.Lock()
	if _, twice := w.waiting[ev.ID]; twice {
		w.mu.Unlock()
		<-w.room
		done(ingest.Result{ID: ev.ID, Outcome: ingest.Duplicate, Message: ingest.MsgDuplicate})
		return nil
	}
	frame := append(append([]byte(`["EVENT",`), line...), ']')
	w.waiting[ev.ID] = outstanding{frame: frame, done: done}
	w.mu.Unlock()
	if err := w.ws.Write(ctx, websocket.MessageText, frame); err != nil {
		w.fail(err)
	}
	return nil
}

// Err is why the connection failed, nil while it works.
func (w *WebSocket) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the connection normally.
func (w *WebSocket) Close() error {
	defer w.cancel()
	return w.ws.Close(websocket.StatusNormalClosure, "")
}

// read answers outstanding events from the server's OKs.
func (w *WebSocket) read() {
	for {
		_, data, err := w.ws.Read(w.ctx)
		if err != nil {
			w.fail(fmt.Errorf("the server closed the connection: %w", err))
			return
		}
		var msg []any
		if json.Unmarshal(data, &msg) != nil || len(msg) != 4 || msg[0] != "OK" {
			continue
		}
		id, _ := msg[1].(string)
		ok, _ := msg[2].(bool)
		reason, _ := msg[3].(string)
		w.mu.Lock()
		o, mine := w.waiting[id]
		if mine && !ok && strings.HasPrefix(reason, "rate-limited:") {
			w.mu.Unlock()
			time.AfterFunc(rateLimitPause, func() {
				if err := w.ws.Write(w.ctx, websocket.MessageText, o.frame); err != nil {
					w.fail(err)
				}
			})
			continue
		}
		delete(w.waiting, id)
		w.mu.Unlock()
		if mine {
			<-w.room
			o.done(ingest.ResultFromOK(id, ok, reason))
		}
	}
}

// fail records the connection's end (the first error wins) and answers
// every outstanding event with it.
func (w *WebSocket) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	waiting := w.waiting
	w.waiting = map[string]outstanding{}
	w.mu.Unlock()
	w.cancel()
	for id, o := range waiting {
		<-w.room
		o.done(ingest.Result{ID: id, Outcome: ingest.Rejected, Message: "error: " + err.Error()})
	}
}
