//go:build windows

package testutil

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// ProcessCPU is the CPU time (user + system) this process has used so far:
// benchmarks report it next to wall time, which a shared machine stretches.
func ProcessCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		tb.Fatal(err)
	}
	return span(kernel) + span(user)
}

// span is a Filetime read as a duration (not a date): 100 ns intervals.
func span(t windows.Filetime) time.Duration {
	return time.Duration(int64(t.HighDateTime)<<32|int64(t.LowDateTime)) * 100
}
