package testutil

import (
	"os"
	"strconv"
	"strings"
)

// ProcStatusKiB reads a kB figure of this process's /proc/self/status
// (VmRSS: resident now, VmHWM: its high-water mark); false where there is
// no such file (not Linux) or no such field.
func ProcStatusKiB(field string) (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib, err == nil
		}
	}
	return 0, false
}
