package main

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A second launch of the desktop app (from the menu, where nobody reads a
// terminal) asks the running one, over a Unix socket in the data directory,
// to bring its window up, and exits 0.

const raiseRequest, raiseAnswer = "raise", "ok"

func raiseSocket(dataDir string) string { return filepath.Join(dataDir, "window.sock") }

// listenForRaise listens for second launches until ctx ends; each request
// is a value on the channel. The caller holds the data directory's lock, so
// a socket file left by a process that died is stale and replaced.
func listenForRaise(ctx context.Context, dataDir string) (<-chan struct{}, error) {
	path := raiseSocket(dataDir)
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	raise := make(chan struct{}, 1)
	go func() {
		<-ctx.Done()
		l.Close() // also removes the socket file
	}()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go answerRaise(conn, raise)
		}
	}()
	return raise, nil
}

func answerRaise(conn net.Conn, raise chan<- struct{}) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != raiseRequest {
		return
	}
	select {
	case raise <- struct{}{}:
	default: // a raise is pending already
	}
	_, _ = conn.Write([]byte(raiseAnswer + "\n"))
}

// askToRaise asks the desktop app running on dataDir to bring its window up.
func askToRaise(dataDir string) error {
	conn, err := net.DialTimeout("unix", raiseSocket(dataDir), 2*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte(raiseRequest + "\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != raiseAnswer {
		return errors.New("the running app did not answer")
	}
	return nil
}

// raiseListener is listenForRaise for the desktop: without it (a data
// directory path too long for a socket) a second launch only says that the
// app runs.
func raiseListener(ctx context.Context, dataDir string) <-chan struct{} {
	raise, err := listenForRaise(ctx, dataDir)
	if err != nil {
		slog.Warn("a second launch cannot bring this window up", "err", err)
	}
	return raise
}
