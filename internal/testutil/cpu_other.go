//go:build !linux

package testutil

import (
	"testing"
	"time"
)

// ThreadCPU is the process's CPU time where a thread's cannot be read.
func ThreadCPU(tb testing.TB) time.Duration { return ProcessCPU(tb) }
