package main

import (
	"os"
	"runtime/debug"
)

// memoryTarget is the Go runtime's soft memory limit (GOMEMLIMIT, unless the
// environment sets one). The heap of 300,000 people holds about 570 MiB
// (BenchmarkHeapBytes300k); with the collector's default headroom (GOGC=100)
// the process then peaked at 1,189 MiB, under a limit of 896 MiB at 906 MiB,
// by collecting more often as memory nears it. A first sync of those people
// from strfry still reached 1,031 MiB resident under 896 MiB: SQLite's
// caches and the program's text lie outside the Go heap (about 130 MiB
// beside its 850 MiB arena), so the limit leaves them room under 1 GiB.
// Below it the runtime behaves as without one.
const memoryTarget = 800 << 20

func setMemoryTarget() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryTarget)
	}
}
