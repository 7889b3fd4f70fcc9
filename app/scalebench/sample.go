package scalebench

import (
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
			rss, hwm := processRSS(pid)
			s.rssPeak = max(s.rssPeak, rss, hwm)
			select {
			case <-s.quit:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop ends the sampling of an exited process. The RSS peak is the
// process's own high-water mark (VmHWM, last read at most 50 ms before it
// exited), not its rusage's: Linux carries ru_maxrss across fork and exec,
// so a child's was the bench's own peak (1,730 MiB at W = 300,000, while
// the sync process never passed about 1,030 MiB in 2-second samples).
func (s *sampler) stop() (walPeak, rssPeak int64) {
	close(s.quit)
	<-s.done
	return max(s.walPeak, fileSize(s.wal)), s.rssPeak
}
