package testutil

import (
	"net"
	"sync"
	"testing"
	"time"
)

// DelayProxy forwards TCP connections from a listener on 127.0.0.1 to a
// target address, holding every chunk of bytes back for delay in each
// direction (order kept, throughput not limited): a relay far away, on
// loopback.
type DelayProxy struct {
	Addr string // host:port to connect to instead of the target

	ln     net.Listener
	target string
	delay  time.Duration
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn // closed when the test ends
}

// StartDelayProxy forwards to target with delay each way until the test
// ends.
func StartDelayProxy(tb testing.TB, target string, delay time.Duration) *DelayProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &DelayProxy{Addr: ln.Addr().String(), ln: ln, target: target, delay: delay}
	p.wg.Go(p.accept)
	tb.Cleanup(func() {
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *DelayProxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		p.wg.Go(func() { p.forward(in, out) })
		p.wg.Go(func() { p.forward(out, in) })
	}
}

// chunk is bytes read at a moment, to be written delay later.
type chunk struct {
	data []byte
	at   time.Time
}

// forward copies src to dst, each chunk delay after it was read; either
// side ending closes both.
func (p *DelayProxy) forward(src, dst net.Conn) {
	chunks := make(chan chunk, 1024)
	var wg sync.WaitGroup
	wg.Go(func() {
		failed := false
		for c := range chunks {
			if failed {
				continue // drained until the reader sees src closed
			}
			time.Sleep(time.Until(c.at.Add(p.delay)))
			if _, err := dst.Write(c.data); err != nil {
				failed = true
				_ = src.Close()
			}
		}
		_ = dst.Close()
		_ = src.Close()
	})
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			chunks <- chunk{data: append([]byte(nil), buf[:n]...), at: time.Now()}
		}
		if err != nil {
			break
		}
	}
	close(chunks)
	wg.Wait()
}
