package scalebench

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dtp-personal/engine/fixture"
)

// relay is the process that serves the web on loopback.
type relay interface {
	name() string
	load(ctx context.Context, jsonl string) (walPeak int64, err error) // before start; walPeak: ours only
	start(ctx context.Context) (url string, err error)                 // listening when it returns
	publish(ctx context.Context, jsonl string) error                   // while it runs
	stop()
}

func (r *run) newRelay() relay {
	if r.cfg.Strfry != "" {
		return &strfryRelay{bin: r.cfg.Strfry, dir: filepath.Join(r.dir, "strfry")}
	}
	return &ownRelay{bin: r.cfg.Binary, data: filepath.Join(r.dir, "relay"), log: filepath.Join(r.dir, "relay.log")}
}

// ownRelay is a second dtp-personal server on its own data directory,
// filled by `import`.
type ownRelay struct {
	bin, data, log string
	srv            *server
}

func (o *ownRelay) name() string { return "dtp-personal serve --headless (no strfry found)" }

// load imports the web in a process of its own, following the WAL: the
// import is one of the loads whose WAL must stay bounded (issue 26 §1).
func (o *ownRelay) load(ctx context.Context, jsonl string) (int64, error) {
	cmd := exec.CommandContext(ctx, o.bin, "--data", o.data, "import", jsonl)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	s := sample(cmd.Process.Pid, walPath(o.data))
	err := cmd.Wait()
	walPeak, _ := s.stop()
	if err != nil {
		return walPeak, fmt.Errorf("dtp-personal import: %v: %s", err, lastLines(out.String(), 5))
	}
	return walPeak, nil
}

func (o *ownRelay) start(ctx context.Context) (string, error) {
	srv, err := startServer(ctx, o.bin, o.data, o.log)
	if err != nil {
		return "", err
	}
	if err := waitListening(ctx, srv.addr, 5*time.Minute); err != nil {
		srv.stop()
		return "", err
	}
	o.srv = srv
	return "ws://" + srv.addr, nil
}

// publish pushes through the running server, as a client would.
func (o *ownRelay) publish(ctx context.Context, jsonl string) error {
	return runQuiet(ctx, o.bin, "--data", o.data, "import", jsonl)
}

func (o *ownRelay) stop() {
	if o.srv != nil {
		o.srv.stop()
		o.srv = nil
	}
}

// strfryRelay is a strfry relay with its database in the run's directory,
// bound to 127.0.0.1, filled by `strfry import` (JSONL on stdin).
type strfryRelay struct {
	bin, dir string
	addr     string
	proc     *child
}

func (s *strfryRelay) name() string { return "strfry (" + s.bin + ")" }

// strfryConf writes a configuration for a strfry on dir listening on port.
var strfryConf = fixture.StrfryConf

func (s *strfryRelay) conf() (string, error) {
	if s.addr == "" {
		port, err := freePort()
		if err != nil {
			return "", err
		}
		s.addr = "127.0.0.1:" + strconv.Itoa(port)
	}
	_, port, _ := net.SplitHostPort(s.addr)
	p, _ := strconv.Atoi(port)
	return strfryConf(s.dir, p)
}

func (s *strfryRelay) load(ctx context.Context, jsonl string) (int64, error) {
	conf, err := s.conf()
	if err != nil {
		return 0, err
	}
	return 0, strfryImport(ctx, s.bin, conf, jsonl)
}

func strfryImport(ctx context.Context, bin, conf, jsonl string) error {
	in, err := os.Open(jsonl)
	if err != nil {
		return err
	}
	defer in.Close()
	return fixture.StrfryImport(ctx, bin, conf, in)
}

func (s *strfryRelay) start(ctx context.Context) (string, error) {
	conf, err := s.conf()
	if err != nil {
		return "", err
	}
	if s.proc, err = startChild(filepath.Join(s.dir, "relay.log"), s.bin, "--config="+conf, "relay"); err != nil {
		return "", err
	}
	if err := waitListening(ctx, s.addr, time.Minute); err != nil {
		s.stop()
		return "", err
	}
	return "ws://" + s.addr, nil
}

func (s *strfryRelay) publish(ctx context.Context, jsonl string) error {
	conf, err := s.conf()
	if err != nil {
		return err
	}
	return strfryImport(ctx, s.bin, conf, jsonl)
}

func (s *strfryRelay) stop() {
	if s.proc != nil {
		s.proc.stop()
		s.proc = nil
	}
}

// reference times `strfry sync URL --dir down` (NIP-77) into an empty
// strfry, twice: the copy, then the same with nothing new.
func (s *strfryRelay) reference(ctx context.Context, r *run, url string) (*Reference, error) {
	dir := filepath.Join(r.dir, "strfry-copy")
	conf, err := strfryConf(dir, 0)
	if err != nil {
		return nil, err
	}
	ref := &Reference{}
	for i, into := range []*float64{&ref.Seconds, &ref.Again} {
		r.logf("strfry reference: strfry sync %s --dir down (%s)", url, []string{"into an empty strfry", "again, nothing new"}[i])
		t := time.Now()
		if out, err := exec.CommandContext(ctx, s.bin, "--config="+conf, "sync", url, "--dir=down").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("strfry sync: %v: %s", err, lastLines(string(out), 5))
		}
		*into = time.Since(t).Seconds()
	}
	out, err := exec.CommandContext(ctx, s.bin, "--config="+conf, "scan", "--count", "{}").Output()
	if err != nil {
		return nil, fmt.Errorf("strfry scan --count: %v", err)
	}
	if ref.Events, err = strconv.ParseInt(strings.TrimSpace(lastLines(string(out), 1)), 10, 64); err != nil {
		return nil, fmt.Errorf("strfry scan --count said %q", out)
	}
	ref.EventsPerSec = float64(ref.Events) / ref.Seconds
	r.logf("strfry reference: %d events in %.1f s, %.0f events/s; again in %.1f s", ref.Events, ref.Seconds, ref.EventsPerSec, ref.Again)
	return ref, nil
}

// runQuiet runs a command and returns the end of its output as the error.
func runQuiet(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, lastLines(out.String(), 5))
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening waits until addr accepts TCP connections.
func waitListening(ctx context.Context, addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s", addr, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// child is a started long-running process.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited and been waited for
}

// startChild starts name with args, its stdout and stderr into logPath.
func startChild(logPath, name string, args ...string) (*child, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	c := &child{cmd: exec.Command(name, args...), done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	go func() {
		c.cmd.Wait()
		log.Close()
		close(c.done)
	}()
	return c, nil
}

// stop asks the process to stop (SIGTERM) and kills it after 30 s, or at
// once where signals are not delivered.
func (c *child) stop() {
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		c.cmd.Process.Kill()
	}
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
}
