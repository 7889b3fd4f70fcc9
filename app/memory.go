package main

import (
	"os"
	"runtime/debug"
)

// memoryTarget is the Go runtime's soft memory limit (GOMEMLIMIT, unless the
// environment sets one). The heap of 300,000 people holds about 570 MiB
// (BenchmarkHeapBytes300k); with the collector's default headroom (GOGC=100)
// the process then peaked at 1,189 MiB, under this limit at 906 MiB, by
// collecting more often as memory nears it. Below it the runtime behaves as
// without one.
const memoryTarget = 896 << 20

func setMemoryTarget() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryTarget)
	}
}
