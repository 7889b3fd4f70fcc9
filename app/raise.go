package main

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net"
	"strings"
	"time"
)

// A second launch of the desktop app (from the menu, where nobody reads a
// terminal) asks the running one to bring its window up, and exits 0. It
// asks over a channel only the same user can use: a Unix socket in the data
// directory (raise_unix.go), or on Windows a loopback port with a secret
// kept in the data directory (raise_windows.go).

const raiseRequest, raiseAnswer = "raise", "ok"

// listenForRaise listens for second launches until ctx ends; each request
// is a value on the channel. The caller holds the data directory's lock, so
// what a process that died left behind is stale and replaced.
func listenForRaise(ctx context.Context, dataDir string) (<-chan struct{}, error) {
	l, secret, err := raiseListen(dataDir)
	if err != nil {
		return nil, err
	}
	raise := make(chan struct{}, 1)
	go func() {
		<-ctx.Done()
		l.Close() // also removes what raiseListen left in the data directory
	}()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go answerRaise(conn, raise, raiseRequest+secret)
		}
	}()
	return raise, nil
}

func answerRaise(conn net.Conn, raise chan<- struct{}, request string) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(line)), []byte(request)) != 1 {
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
	conn, secret, err := raiseDial(dataDir)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte(raiseRequest + secret + "\n")); err != nil {
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
