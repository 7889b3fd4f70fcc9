//go:build !linux

package scalebench

import "time"

// processRSS is unknown here: only Linux is measured.
func processRSS(int) (rss, hwm int64) { return 0, 0 }

// processCPU is unknown here.
func processCPU(int) (time.Duration, bool) { return 0, false }
