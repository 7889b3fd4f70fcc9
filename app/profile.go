package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

// profileEnv names a directory for Go profiles of this process (issue 26:
// where the memory and time of a sync at 300,000 people go). The process
// writes cpu-PID.pprof for its whole run and heap-PID.pprof, the live heap
// at the largest it was seen (looked at every few seconds). Unset: nothing
// is profiled.
const profileEnv = "DTP_PROFILE_DIR"

// startProfiling starts the profiles profileEnv asks for; the returned stop
// ends them.
func startProfiling() (stop func()) {
	dir := os.Getenv(profileEnv)
	if dir == "" {
		return func() {}
	}
	pid := strconv.Itoa(os.Getpid())
	cpu, err := os.Create(filepath.Join(dir, "cpu-"+pid+".pprof"))
	if err == nil && pprof.StartCPUProfile(cpu) != nil {
		cpu.Close()
		cpu = nil
	}
	heapPath := filepath.Join(dir, "heap-"+pid+".pprof")
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		var largest uint64
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				largest = writeHeapProfile(heapPath, largest)
			}
		}
	}()
	return func() {
		close(done)
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
	}
}

// writeHeapProfile replaces path with a profile of the live heap when it is
// larger than largest, and returns the larger of the two sizes.
func writeHeapProfile(path string, largest uint64) uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc <= largest {
		return largest
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return largest
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if f.Close() == nil && err == nil && os.Rename(tmp, path) == nil {
		return m.HeapAlloc
	}
	return largest
}
