package main

import (
	"os"
	"runtime/debug"

	"dtp-personal/engine"
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

// mappedTargetFloor bounds how far a mapped heap snapshot lowers the limit
// (openEngine): the live Go heap of a serve or a refresh at 300,000 people
// was 240-340 MiB, and a limit under the live heap makes the collector run
// without end.
const mappedTargetFloor = 400 << 20

func setMemoryTarget() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryTarget)
	}
}

// openEngine opens the engine and lowers the memory limit by the heap
// snapshot it maps: the snapshot's pages count as resident memory (360 MiB
// at 300,000 people) but not as the Go heap, and with them a refresh at that
// size peaked at 1,143 MiB under the 800 MiB limit.
func openEngine(opts engine.Options) (*engine.Engine, error) {
	eng, err := engine.Open(opts)
	if err == nil && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(memoryTarget-eng.MappedBytes(), mappedTargetFloor))
	}
	return eng, err
}
