//go:build !windows

package main

import (
	"net"
	"os"
	"path/filepath"
	"time"
)

func raiseSocket(dataDir string) string { return filepath.Join(dataDir, "window.sock") }

// raiseListen listens on window.sock in the data directory, which only the
// user may enter; closing the listener removes the socket file. A request
// needs no secret.
func raiseListen(dataDir string) (net.Listener, string, error) {
	path := raiseSocket(dataDir)
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	return l, "", err
}

// raiseDial connects to the running app's window.sock.
func raiseDial(dataDir string) (net.Conn, string, error) {
	conn, err := net.DialTimeout("unix", raiseSocket(dataDir), 2*time.Second)
	return conn, "", err
}
