package main

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"dtp-personal/engine"
)

// TestServerStartsWhileStatusRuns is issue 29 item 5: a monitoring script
// runs `status` in a loop while the server is (re)started on the same data
// directory. A read-only command must never make the starting server exit
// with "an engine is already running"; a second server still refuses.
func TestServerStartsWhileStatusRuns(t *testing.T) {
	data := t.TempDir()
	if _, err := cliRun(t, data, "roots", "add", strings.Repeat("ab", 32)); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var loops sync.WaitGroup
	var statuses, failed atomic.Int64
	var firstFailure atomic.Value
	for range 2 { // two scripts, so that one is always somewhere in its run
		loops.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				statuses.Add(1)
				if out, err := exec.Command(binary, "--data", data, "status").CombinedOutput(); err != nil {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprintf("%v: %s", err, out))
				}
			}
		})
	}
	defer func() { close(stop); loops.Wait() }()

	const tries = 50
	for i := range tries {
		addr := freeAddr(t)
		cmd := exec.Command(binary, "serve", "--headless", "--data", data, "--listen", addr)
		stderr := lockedWriter{&sync.Mutex{}, &strings.Builder{}}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if err := awaitListening(addr, exited); err != nil {
			t.Fatalf("try %d of %d (%d status runs so far, %d failed): the server did not come up: %v\n%s",
				i+1, tries, statuses.Load(), failed.Load(), err, stderr.String())
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Fatalf("try %d: the server did not stop cleanly: %v\n%s", i+1, err, stderr.String())
		}
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d status runs failed beside a starting server; the first: %s", n, statuses.Load(), firstFailure.Load())
	}
	if statuses.Load() < tries {
		t.Fatalf("only %d status runs beside %d starts: the loop did not overlap the starts", statuses.Load(), tries)
	}
	t.Logf("%d starts beside %d status runs", tries, statuses.Load())

	// a second server on the same directory is still refused
	first := startServer(t, data)
	out, err := exec.Command(binary, "serve", "--headless", "--data", data, "--listen", freeAddr(t)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), engine.ErrAlreadyRunning.Error()) {
		t.Fatalf("second server on %s: err %v, output %s (first: %s)", data, err, out, first.log())
	}
}

// awaitListening waits until addr accepts connections, or the process ends.
func awaitListening(addr string, exited <-chan error) error {
	deadline := time.After(20 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("it exited (%v)", err)
		case <-deadline:
			return errors.New("not listening after 20 s")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (w lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
