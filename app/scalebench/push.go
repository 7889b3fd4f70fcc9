package scalebench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine"
	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
)

// pushConnections are the WebSocket connections the push phase sends on at
// once, each with importer.Window events awaiting their OK.
const pushConnections = 4

// pushWeb measures the push path: a fresh server, on an empty data directory
// set up as the syncing one but with no relay (a sync would fetch what the
// push measures), takes as many of the web's events as the first sync stored
// from clients over loopback WebSockets.
func (r *run) pushWeb(ctx context.Context, webFile string) (*Push, error) {
	n := r.res.FirstSync.Stored
	if n <= 0 {
		n = int64(r.res.Events)
	}
	in, err := openLines(webFile, n)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	data := filepath.Join(r.dir, "push")
	if err := r.prepare(ctx, data, ""); err != nil {
		return nil, err
	}
	srv, err := startServer(ctx, r.cfg.Binary, data, filepath.Join(r.dir, "push-serve.log"))
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	conns, err := dialOwner(ctx, srv, data)
	if err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	r.logf("push: %d events over %d WebSocket connections to a fresh serve --headless", n, pushConnections)
	s := sample(srv.cmd.Process.Pid, walPath(data))
	t := time.Now()
	tally, err := importer.Run(ctx, in, conns, nil)
	p := &Push{Connections: pushConnections, Seconds: time.Since(t).Seconds(), Events: tally.Lines,
		Acked: tally.Stored + tally.Duplicates, Refused: tally.Rejected}
	p.WALPeak, p.RSSPeak = s.stop() // up to the last OK: the server's stop is not the push's
	conns.close()
	if err != nil {
		return p, fmt.Errorf("push: %w", err)
	}
	for _, rule := range tally.Rules() {
		p.Refusals = append(p.Refusals, fmt.Sprintf("%s (%d)", rule.Rule, rule.Count))
	}
	srv.stop()
	if p.Stored, err = countEvents(ctx, data); err != nil {
		return p, err
	}
	if p.Seconds > 0 {
		p.EventsPerSec = float64(p.Stored) / p.Seconds
	}
	if p.EventsPerSec > 0 {
		p.Ratio = r.res.FirstSync.EventsPerSec / p.EventsPerSec
	}
	r.logf("push: %.1f s, %d acked, %d refused, %d events stored, %.0f events/s (first sync ÷ push = %.2f), WAL peak %s, RSS peak %s",
		p.Seconds, p.Acked, p.Refused, p.Stored, p.EventsPerSec, p.Ratio, mib(p.WALPeak), mib(p.RSSPeak))
	return p, nil
}

// openLines opens a JSONL file for reading its first n lines.
func openLines(path string, n int64) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(f)
	var size int64
	for n > 0 {
		line, err := br.ReadSlice('\n')
		size += int64(len(line))
		switch err {
		case nil:
			n--
		case bufio.ErrBufferFull: // a line longer than the buffer: read on
		case io.EOF:
			n = 0
		default:
			f.Close()
			return nil, err
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, size), f}, nil
}

// dialOwner connects pushConnections times to the server once it listens,
// presenting the owner token from its running.json: a client we do not know
// is held to a push rate (server.Limits.EventsPerSecond) the push path's own
// rate may exceed.
func dialOwner(ctx context.Context, srv *server, data string) (*roundRobin, error) {
	c, err := srv.dial(ctx) // waits for it to listen, which it does after writing running.json
	if err != nil {
		return nil, err
	}
	c.CloseNow()
	owner, ok := engine.FindRunning(data)
	if !ok {
		return nil, fmt.Errorf("the server on %s wrote no running.json", data)
	}
	rr := &roundRobin{}
	for range pushConnections {
		ws, err := importer.DialWebSocket(ctx, "ws://"+owner.Listen, http.Header{"Authorization": {"Bearer " + owner.Token}})
		if err != nil {
			rr.close()
			return nil, err
		}
		rr.conns = append(rr.conns, ws)
	}
	return rr, nil
}

// roundRobin is an import's transport over several connections, each
// event on the next: one connection's window would bound what the server
// has in hand at once.
type roundRobin struct {
	conns []*importer.WebSocket
	next  atomic.Uint64
}

func (rr *roundRobin) Send(ctx context.Context, ev *nostr.Event, line []byte, done func(ingest.Result)) error {
	c := rr.conns[(rr.next.Add(1)-1)%uint64(len(rr.conns))]
	return c.Send(ctx, ev, line, done)
}

func (rr *roundRobin) Err() error {
	var errs []error
	for _, c := range rr.conns {
		errs = append(errs, c.Err())
	}
	return errors.Join(errs...)
}

func (rr *roundRobin) close() {
	for _, c := range rr.conns {
		c.Close()
	}
}
