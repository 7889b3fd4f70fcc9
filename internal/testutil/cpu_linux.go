package testutil

import (
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// ThreadCPU is the CPU time the calling OS thread has used so far, to the
// nanosecond (CLOCK_THREAD_CPUTIME_ID): a latency benchmark pins its
// goroutine to its thread (runtime.LockOSThread) and reports each
// operation's own CPU time, which the machine's other load does not stretch.
func ThreadCPU(tb testing.TB) time.Duration {
	tb.Helper()
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		tb.Fatal(errno)
	}
	return time.Duration(ts.Nano())
}
