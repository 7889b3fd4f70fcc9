//go:build !linux

package scalebench

import "os"

// peakRSS is unknown here: only Linux is measured.
func peakRSS(*os.ProcessState) int64 { return 0 }

// processRSS is unknown here: only Linux is measured.
func processRSS(int) (rss, hwm int64) { return 0, 0 }
