package scalebench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// server is a `dtp-personal serve --headless` process on loopback.
type server struct {
	*child
	addr    string
	log     string
	started time.Time
}

func startServer(ctx context.Context, bin, data, logPath string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{addr: "127.0.0.1:" + strconv.Itoa(port), log: logPath, started: time.Now()}
	s.child, err = startChild(logPath, bin, "--data", data, "serve", "--headless", "--listen", s.addr)
	return s, err
}

// exited reports the server's end as an error, with its log's last lines.
func (s *server) exited() error {
	log, _ := os.ReadFile(s.log)
	return fmt.Errorf("the server exited: %s", lastLines(string(log), 5))
}

// dial opens a WebSocket to the server, retrying until it listens.
func (s *server) dial(ctx context.Context) (*websocket.Conn, error) {
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, _, err := websocket.Dial(dctx, "ws://"+s.addr+"/", nil)
		cancel()
		if err == nil {
			c.SetReadLimit(256 << 20) // an answer lists all evidence
			return c, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.done:
			return nil, s.exited()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// answer is the part of a resolver answer the benchmark shows.
type answer struct {
	Verdict  string            `json:"verdict"`
	Evidence []json.RawMessage `json:"evidence"`
	Coverage struct {
		State   string   `json:"state"`
		Reasons []string `json:"reasons"`
	} `json:"coverage"`
	ComputeMicros int64  `json:"computeMicros"`
	Error         string `json:"error"`
}

func (a answer) String() string {
	s := fmt.Sprintf("verdict %s, %d evidence, coverage %s", a.Verdict, len(a.Evidence), a.Coverage.State)
	if len(a.Coverage.Reasons) > 0 {
		s += fmt.Sprintf(" %v", a.Coverage.Reasons)
	}
	return s + fmt.Sprintf(", computed in %d µs", a.ComputeMicros)
}

// resolve asks one RESOLVE on c and waits for its answer.
func resolve(ctx context.Context, c *websocket.Conn, id, subject string) (answer, error) {
	if err := ask(ctx, c, id, subject); err != nil {
		return answer{}, err
	}
	return answerTo(ctx, c, id)
}

// ask sends one RESOLVE on c.
func ask(ctx context.Context, c *websocket.Conn, id, subject string) error {
	q, _ := json.Marshal([]any{"RESOLVE", id, map[string]string{"subject": subject}})
	return c.Write(ctx, websocket.MessageText, q)
}

// answerTo reads c until the answer to the RESOLVE id comes.
func answerTo(ctx context.Context, c *websocket.Conn, id string) (answer, error) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return answer{}, err
		}
		var frame []json.RawMessage
		if json.Unmarshal(b, &frame) != nil || len(frame) < 2 {
			return answer{}, fmt.Errorf("unreadable frame %.200s", b)
		}
		var label, gotID string
		json.Unmarshal(frame[0], &label)
		switch label {
		case "RESOLVED":
			if json.Unmarshal(frame[1], &gotID); gotID != id || len(frame) < 3 {
				continue
			}
			var a answer
			if err := json.Unmarshal(frame[2], &a); err != nil {
				return answer{}, err
			}
			if a.Error != "" {
				return a, errors.New(a.Error)
			}
			return a, nil
		case "NOTICE":
			return answer{}, fmt.Errorf("server notice: %s", frame[1])
		}
	}
}

// firstAnswer waits for the server to listen and answer one question; it
// returns when it listened and what it answered.
func (s *server) firstAnswer(ctx context.Context, subject string) (time.Duration, string, error) {
	c, err := s.dial(ctx)
	if err != nil {
		return 0, "", err
	}
	listening := time.Since(s.started)
	defer c.CloseNow()
	a, err := resolve(ctx, c, "first", subject)
	if err != nil {
		return listening, "", err
	}
	return listening, a.String(), nil
}

// timeResolves asks n questions in turn on one connection, subject(k) the
// k-th, after before(c, k) when there is one (not timed), and times the round
// trips from the warm-th on.
func (s *server) timeResolves(ctx context.Context, n, warm int, subject func(k int) string, before func(c *websocket.Conn, k int) error) (Latency, error) {
	c, err := s.dial(ctx)
	if err != nil {
		return Latency{}, err
	}
	defer c.CloseNow()
	var took, compute []float64
	for k := range n {
		if before != nil {
			if err := before(c, k); err != nil {
				return Latency{}, err
			}
		}
		t := time.Now()
		a, err := resolve(ctx, c, strconv.Itoa(k), subject(k))
		if err != nil {
			return Latency{}, fmt.Errorf("resolve %s: %w", subject(k), err)
		}
		if k >= warm {
			took = append(took, float64(time.Since(t).Microseconds())/1000)
			compute = append(compute, float64(a.ComputeMicros))
		}
	}
	return latency(took, compute), nil
}

// push sends one EVENT on c and waits for its OK true (sent after the
// event's transaction committed).
func push(ctx context.Context, c *websocket.Conn, ev *nostr.Event) error {
	frame, _ := json.Marshal([]any{"EVENT", ev})
	if err := c.Write(ctx, websocket.MessageText, frame); err != nil {
		return err
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return err
		}
		var f []json.RawMessage
		if json.Unmarshal(b, &f) != nil || len(f) < 3 {
			continue
		}
		var label, id string
		var ok bool
		json.Unmarshal(f[0], &label)
		json.Unmarshal(f[1], &id)
		if label != "OK" || id != ev.ID {
			continue
		}
		if json.Unmarshal(f[2], &ok); !ok {
			return fmt.Errorf("push %s refused: %s", ev.ID, b)
		}
		return nil
	}
}

// latency is the percentiles of round trips in milliseconds, with the
// server's own compute times (µs): their mean and p99, which the machine's
// load stretches less than the round trips.
func latency(took, compute []float64) Latency {
	if len(took) == 0 {
		return Latency{}
	}
	var sum float64
	for _, c := range compute {
		sum += c
	}
	return Latency{Count: len(took), P50: quantile(took, 0.50), P99: quantile(took, 0.99), Max: quantile(took, 1),
		ComputeMicros: sum / float64(len(compute)), ComputeP99: quantile(compute, 0.99)}
}

// quantile sorts xs and returns its q-quantile (the largest for q = 1).
func quantile(xs []float64, q float64) float64 {
	slices.Sort(xs)
	return xs[min(int(q*float64(len(xs))), len(xs)-1)]
}

// pacedGap is the pace of pacedResolves' questions.
const pacedGap = 2 * time.Millisecond

// pacedResolves asks twice Config.Resolves questions at a steady pace on
// one connection (8 s at the default: several of the frontier's walks, which
// a commit that changes hops sets off a second later): one every pacedGap
// whatever the answers' pace, each timed from when it was
// sent, so one that waits behind another counts both waits, as a client
// asking at any moment would find them (questions asked one after another
// would meet a stall of the server once, however long it lasted). With
// pushing, another connection meanwhile pushes a new statement by every
// hundredth author from the 75th (neither the commits' nor the change
// refresh's), each once the last one's OK came, as a sync commits batch
// after batch.
func (r *run) pacedResolves(ctx context.Context, srv *server, subject func(k int) string, pushing bool) (Latency, error) {
	qc, err := srv.dial(ctx)
	if err != nil {
		return Latency{}, err
	}
	defer qc.CloseNow()
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	pushed := make(chan error, 1)
	if pushing {
		pc, err := srv.dial(ctx)
		if err != nil {
			return Latency{}, err
		}
		defer pc.CloseNow()
		go func() {
			now := time.Now().Unix()
			for i := 75 % r.cfg.Authors; ; i = (i + 100) % r.cfg.Authors {
				if err := push(pctx, pc, r.web.Change(i, now)); err != nil {
					if pctx.Err() != nil {
						err = nil // stopped with the questions
					}
					pushed <- err
					return
				}
			}
		}()
	} else {
		pushed <- nil
	}
	n := 2 * r.cfg.Resolves
	sent := make(chan time.Time, n) // answers come in the order asked
	asked := make(chan error, 1)
	go func() {
		tick := time.NewTicker(pacedGap)
		defer tick.Stop()
		for k := range n {
			sent <- time.Now()
			if err := ask(pctx, qc, strconv.Itoa(k), subject(k)); err != nil {
				asked <- err
				return
			}
			<-tick.C
		}
		asked <- nil
	}()
	var took, compute []float64
	for k := range n {
		a, err := answerTo(ctx, qc, strconv.Itoa(k))
		if err != nil {
			return Latency{}, fmt.Errorf("resolve %s: %w", subject(k), err)
		}
		took = append(took, float64(time.Since(<-sent).Microseconds())/1000)
		compute = append(compute, float64(a.ComputeMicros))
	}
	stop()
	return latency(took, compute), errors.Join(<-asked, <-pushed)
}
