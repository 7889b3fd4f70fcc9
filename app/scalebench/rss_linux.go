package scalebench

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// processRSS is a running process's resident set now and its high-water
// mark (VmRSS and VmHWM of /proc/PID/status).
func processRSS(pid int) (rss, hwm int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) < 2 {
			continue
		}
		kib, _ := strconv.ParseInt(string(f[1]), 10, 64)
		switch string(f[0]) {
		case "VmRSS:":
			rss = kib << 10
		case "VmHWM:":
			hwm = kib << 10
		}
	}
	return rss, hwm
}
