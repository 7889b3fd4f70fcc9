package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/nbd-wtf/go-nostr/nip11"
)

// AddressCheck decides, at connect time, whether a relay may be reached at
// addr, the address its name resolved to (every TCP connection a dial makes,
// the NIP-11 request's and the WebSocket's, redirects included): nil admits
// it. Checking the address connected to, not the name, leaves no room for a
// name that resolves to a public address when checked and to a private one
// when dialled (DNS rebinding).
type AddressCheck func(addr netip.Addr) error

// dialRefusedError is a connection the dial policy refused.
type dialRefusedError struct {
	addr     netip.Addr
	netRange string // LocalRange's name of the address's range
}

func (e *dialRefusedError) Error() string {
	return fmt.Sprintf("refused by the dial policy: the relay's address %s is %s", e.addr, e.netRange)
}

// PublicOnly is an AddressCheck that admits public addresses only.
func PublicOnly(addr netip.Addr) error {
	if r := LocalRange(addr); r != "" {
		return &dialRefusedError{addr: addr.Unmap(), netRange: r}
	}
	return nil
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598): not
// the public internet.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// LocalRange names the range of an address that is not on the public
// internet: "loopback", "private" (RFC 1918), "unique-local" (fc00::/7),
// "link-local", "unspecified", "multicast", "shared" (carrier-grade NAT);
// "" for a public address. IPv4 in IPv6 form is read as IPv4.
func LocalRange(addr netip.Addr) string {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid():
		return "unspecified"
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate() && addr.Is6():
		return "unique-local"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast():
		return "link-local"
	case addr.IsUnspecified() || addr.Is4() && addr.As4()[0] == 0:
		return "unspecified"
	case addr.IsMulticast() || addr.IsLinkLocalMulticast() || addr == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "multicast"
	case cgnat.Contains(addr):
		return "shared"
	}
	return ""
}

// guardedClient is an HTTP client whose every TCP connection is checked
// before it is made. It takes no proxy from the environment: the check
// would see the proxy's address, not the relay's. nil check: nil (the
// default client).
func guardedClient(check AddressCheck, timeout time.Duration) *http.Client {
	if check == nil {
		return nil
	}
	dialer := &net.Dialer{Timeout: timeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("refused by the dial policy: unreadable address %q", address)
		}
		return check(ap.Addr())
	}}
	// HTTP/1.1 only: the WebSocket handshake is an HTTP/1.1 upgrade
	return &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout,
		MaxIdleConns: 1, IdleConnTimeout: time.Second}}
}

// fetchInfo reads a relay's NIP-11 document through client (nil: go-nostr's
// own fetch, over the default client).
func fetchInfo(ctx context.Context, client *http.Client, url string) (nip11.RelayInformationDocument, error) {
	if client == nil {
		return nip11.Fetch(ctx, url)
	}
	var info nip11.RelayInformationDocument
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http"+strings.TrimPrefix(url, "ws"), nil)
	if err != nil {
		return info, err
	}
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := client.Do(req)
	if err != nil {
		return info, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return info, fmt.Errorf("NIP-11: HTTP %d", resp.StatusCode)
	}
	err = json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&info)
	return info, err
}
