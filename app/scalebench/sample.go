package scalebench

import (
	"os"
	"time"
)

// sampler follows a running process: the largest size its WAL file reached
// and its largest resident set, every 50 ms.
type sampler struct {
	quit, done       chan struct{}
	walPeak, rssPeak int64
	wal              string
}

func sample(pid int, wal string) *sampler {
	s := &sampler{quit: make(chan struct{}), done: make(chan struct{}), wal: wal}
	go func() {
		defer close(s.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			s.walPeak = max(s.walPeak, fileSize(wal))
			rss, _ := processRSS(pid)
			s.rssPeak = max(s.rssPeak, rss)
			select {
			case <-s.quit:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop ends the sampling of an exited process; the RSS peak is the kernel's
// (the high-water mark of its rusage) where there is one.
func (s *sampler) stop(ps *os.ProcessState) (walPeak, rssPeak int64) {
	close(s.quit)
	<-s.done
	return max(s.walPeak, fileSize(s.wal)), max(s.rssPeak, peakRSS(ps))
}
