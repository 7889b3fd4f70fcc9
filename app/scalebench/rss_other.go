//go:build !linux

package scalebench

// processRSS is unknown here: only Linux is measured.
func processRSS(int) (rss, hwm int64) { return 0, 0 }
