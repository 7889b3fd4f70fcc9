//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sys/unix"

	"dtp-personal/engine"
	"dtp-personal/engine/fixture"
)

// lanAddr is the private address the test's network namespace gives its
// loopback interface: a peer on the local network, as the server sees it.
const lanAddr = "10.77.0.1"

// TestAllowLANFromTheCLI is issue 29 item 4: a headless server refuses a
// peer from a private address until `access allow-lan`, which the running
// server applies without a restart, and refuses it again after
// `disallow-lan`. Server and peer share a network namespace of their own
// (root only), where 10.77.0.1 is a local address: real sockets, no traffic
// beyond this machine.
func TestAllowLANFromTheCLI(t *testing.T) {
	data := t.TempDir()
	eng, err := engine.Open(engine.Options{DataDir: data, Listen: lanAddr + ":7447",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ns := serveInNewNetns(t, eng)

	ev := fixture.NewAuthor(1).Trust(fixture.P(fixture.NewAuthor(2).Pubkey), "1", time.Now().Unix()-10)
	if err := pushFrom(ns, lanAddr+":7447", ev); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a local-network peer before allow-lan: %v, want 403", err)
	}
	out, err := cliRun(t, data, "access", "allow-lan")
	if err != nil || !strings.HasPrefix(out, "allowed the local network") {
		t.Fatalf("access allow-lan: %q %v", out, err)
	}
	if out, err := cliRun(t, data, "access", "list"); err != nil || !strings.HasPrefix(out, "peers    loopback, local network (10/8") {
		t.Fatalf("access list after allow-lan: %q %v", out, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := pushFrom(ns, lanAddr+":7447", ev)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a local-network peer after allow-lan: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := cliRun(t, data, "access", "disallow-lan"); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		err := pushFrom(ns, lanAddr+":7447", ev)
		if err != nil && strings.Contains(err.Error(), "403") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a local-network peer after disallow-lan: %v, want 403", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serveInNewNetns runs eng.Serve on a thread moved into a new network
// namespace whose loopback interface also holds lanAddr, and returns the
// namespace (a /proc path for setns). It skips the test where namespaces
// cannot be made (not root).
func serveInNewNetns(t *testing.T, eng *engine.Engine) string {
	t.Helper()
	ready := make(chan string, 1)
	failed := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		// this thread alone enters the namespace; it is never unlocked, so
		// it ends with the goroutine instead of running other goroutines
		runtime.LockOSThread()
		if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
			failed <- fmt.Errorf("unshare: %w", err)
			return
		}
		for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", lanAddr + "/32", "dev", "lo"}} {
			// a child started from this thread is in its namespace
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				failed <- fmt.Errorf("ip %v: %v: %s", args, err, out)
				return
			}
		}
		ready <- fmt.Sprintf("/proc/self/task/%d/ns/net", syscall.Gettid())
		// Serve listens on this thread, so in the namespace
		if err := eng.Serve(ctx); err != nil {
			failed <- err
		}
	}()
	t.Cleanup(func() { cancel(); <-served })
	select {
	case ns := <-ready:
		deadline := time.Now().Add(10 * time.Second)
		for eng.ListenAddr() == "" {
			select {
			case err := <-failed:
				t.Fatal(err)
			case <-time.After(10 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatal("the server did not listen")
			}
		}
		return ns
	case err := <-failed:
		if errors.Is(err, syscall.EPERM) || errors.Is(err, exec.ErrNotFound) {
			t.Skipf("no network namespace here (needs root and ip): %v", err)
		}
		t.Fatal(err)
	}
	return ""
}

// pushFrom connects from lanAddr inside the namespace ns to addr, pushes ev
// and returns the refusal of the connection or of the event.
func pushFrom(ns, addr string, ev any) error {
	conn, err := dialInNetns(ns, addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	used := false
	client := &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		if used {
			return nil, errors.New("one connection only")
		}
		used = true
		return conn, nil
	}}}
	ws, resp, err := websocket.Dial(ctx, "ws://"+addr, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		if resp != nil {
			return fmt.Errorf("%d: %w", resp.StatusCode, err)
		}
		return err
	}
	defer ws.CloseNow()
	b, _ := json.Marshal([]any{"EVENT", ev})
	if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
		return err
	}
	_, data, err := ws.Read(ctx)
	if err != nil {
		return err
	}
	var ok []any
	if json.Unmarshal(data, &ok) != nil || len(ok) < 3 || ok[0] != "OK" || ok[2] != true {
		return fmt.Errorf("push refused: %s", data)
	}
	return nil
}

// dialInNetns opens a TCP connection from lanAddr to addr on a thread
// moved into the namespace ns (the socket stays in it).
func dialInNetns(ns, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		f, err := os.Open(ns)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns: %w", err)}
			return
		}
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(lanAddr)}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		done <- result{c, err}
	}()
	r := <-done
	return r.c, r.err
}
