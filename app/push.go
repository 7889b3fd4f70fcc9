package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"dtp-personal/engine"
	"dtp-personal/engine/ingest"
)

// pushWindow is how many events an import keeps awaiting their OK.
const pushWindow = 512

// pushOverWebSocket imports a JSONL stream into a running server over its
// WebSocket, so the events go through that server's pipeline and reach its
// heap. OKs are counted as they arrive; at most pushWindow are outstanding.
// The connection presents the server's owner token (from running.json), so
// the import is not held to the push rate limit of unknown clients.
// Events refused only because what they depend on is not held yet are sent
// again after the file, in rounds (engine.ImportRetries).
func pushOverWebSocket(r engine.Running, in io.Reader, progress func(ingest.Tally)) (ingest.Tally, error) {
	var stats ingest.Tally
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.Base(), "http"), &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + r.Token}},
	})
	if err != nil {
		return stats, fmt.Errorf("connect to the running server: %w", err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)

	answers := make(chan []any, pushWindow)
	readErr := make(chan error, 1)
	go func() {
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				readErr <- err
				close(answers)
				return
			}
			var msg []any
			if json.Unmarshal(data, &msg) == nil && len(msg) == 4 && msg[0] == "OK" {
				answers <- msg
			}
		}
	}()
	// frames by event id, to send again what the server's rate limit refused
	outstanding := map[string][]byte{}
	send := func(id string, frame []byte) error {
		outstanding[id] = frame
		return ws.Write(ctx, websocket.MessageText, frame)
	}
	add := func(r ingest.Result) {
		if stats.Add(r) && progress != nil {
			progress(stats)
		}
	}
	var retry engine.ImportRetries
	count := func(msg []any) error {
		id, _ := msg[1].(string)
		ok, _ := msg[2].(bool)
		reason, _ := msg[3].(string)
		frame, mine := outstanding[id]
		if !mine {
			return nil
		}
		// the server's own refusal, before its pipeline: not an ingest outcome
		if !ok && strings.HasPrefix(reason, "rate-limited:") {
			time.Sleep(50 * time.Millisecond)
			return send(id, frame)
		}
		delete(outstanding, id)
		if r, kept := retry.Hold(ingest.ResultFromOK(id, ok, reason), frame); !kept {
			add(r)
		}
		return nil
	}
	await := func() error {
		msg, ok := <-answers
		if !ok {
			return fmt.Errorf("the server closed the connection: %w", <-readErr)
		}
		return count(msg)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		stats.Lines++
		var ev struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(line, &ev); err != nil || ev.ID == "" {
			add(ingest.Result{Outcome: ingest.Rejected, Message: fmt.Sprintf("invalid: line %d is not a JSON event with an id", stats.Lines)})
			continue
		}
		if _, twice := outstanding[ev.ID]; twice {
			add(ingest.Result{ID: ev.ID, Outcome: ingest.Duplicate, Message: ingest.MsgDuplicate})
			continue
		}
		for len(outstanding) >= pushWindow {
			if err := await(); err != nil {
				return stats, err
			}
		}
		frame := append(append([]byte(`["EVENT",`), line...), ']')
		if err := send(ev.ID, frame); err != nil {
			return stats, err
		}
	}
	drain := func() error {
		for len(outstanding) > 0 {
			if err := await(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := drain(); err != nil {
		return stats, err
	}
	scanErr := sc.Err()
	// every answer is in, so every stored event is committed and known to
	// the server's acceptance check: what waited for one of them passes now
	for round := 0; scanErr == nil && round < engine.ImportRetryRounds && retry.Len() > 0; round++ {
		for _, h := range retry.Take() {
			for len(outstanding) >= pushWindow {
				if err := await(); err != nil {
					return stats, err
				}
			}
			if err := send(h.ID, h.Line); err != nil {
				return stats, err
			}
		}
		if err := drain(); err != nil {
			return stats, err
		}
		if retry.Stored() == 0 {
			break
		}
	}
	for _, h := range retry.Take() {
		add(h.Refusal)
	}
	if progress != nil {
		progress(stats)
	}
	_ = ws.Close(websocket.StatusNormalClosure, "")
	return stats, scanErr
}
