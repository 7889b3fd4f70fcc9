//go:build windows

package main

import (
	"crypto/rand"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"time"
)

// On Windows the running app listens on a loopback port, which any user of
// the machine can reach, so a request must carry a secret. The port and the
// secret are in window.json in the data directory, which only the user can
// read (owneronly); the file is rewritten at each start.

type raiseAddress struct {
	Addr   string `json:"addr"`
	Secret string `json:"secret"`
}

func raiseFile(dataDir string) string { return filepath.Join(dataDir, "window.json") }

// raiseListen listens on a free loopback port and writes it with a new
// secret to window.json; closing the listener removes the file.
func raiseListen(dataDir string) (net.Listener, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	at := raiseAddress{Addr: l.Addr().String(), Secret: rand.Text()}
	b, _ := json.Marshal(at)
	path := raiseFile(dataDir)
	if err := os.WriteFile(path+".tmp", b, 0o600); err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		l.Close()
		return nil, "", err
	}
	return removingListener{Listener: l, path: path}, " " + at.Secret, nil
}

// removingListener removes the file that names it when it closes.
type removingListener struct {
	net.Listener
	path string
}

func (l removingListener) Close() error {
	_ = os.Remove(l.path)
	return l.Listener.Close()
}

// raiseDial connects to the port window.json names and returns its secret.
func raiseDial(dataDir string) (net.Conn, string, error) {
	b, err := os.ReadFile(raiseFile(dataDir))
	if err != nil {
		return nil, "", err
	}
	var at raiseAddress
	if err := json.Unmarshal(b, &at); err != nil {
		return nil, "", err
	}
	conn, err := net.DialTimeout("tcp", at.Addr, 2*time.Second)
	return conn, " " + at.Secret, err
}
