//go:build !windows

package testutil

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU is the CPU time (user + system) this process has used so far:
// benchmarks report it next to wall time, which a shared machine stretches.
func ProcessCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
