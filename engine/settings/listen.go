package settings

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// ParseListen checks a listen address: an IP address or localhost, and a
// port from 1 to 65535. It returns the address without surrounding space.
func ParseListen(s string) (string, error) {
	addr := strings.TrimSpace(s)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q is not host:port, e.g. 127.0.0.1:7447", addr)
	}
	if host == "" {
		return "", errors.New("enter a host before the port, e.g. 127.0.0.1 or 0.0.0.0")
	}
	if host != "localhost" && net.ParseIP(host) == nil {
		return "", fmt.Errorf("listen host %q is not an IP address or localhost", host)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("listen port %q: the port must be a number from 1 to 65535", port)
	}
	return addr, nil
}
