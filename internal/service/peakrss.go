package service

import (
	"bytes"
	"strconv"
)

// PeakRSS is the sum, over the processes pids, of each one's peak resident
// set size so far (VmHWM of /proc/PID/status, the high-water mark of its
// address space since it last exec'd), in bytes; processes gone are left
// out. Unlike getrusage's ru_maxrss, it does not count the address space a
// process was forked with before its exec (perflab's own, for a child it
// starts: Go forks with the parent's memory until the exec).
func PeakRSS(pids []int) int64 {
	var r fileReader
	var total int64
	var path []byte
	for _, pid := range pids {
		path = append(strconv.AppendInt(append(path[:0], "/proc/"...), int64(pid), 10), "/status"...)
		b, err := r.read(string(path))
		if err != nil {
			continue
		}
		if v, ok := parseVmHWM(b); ok {
			total += v
		}
	}
	return total
}

// parseVmHWM reads "VmHWM:\t  12345 kB" from /proc/PID/status.
func parseVmHWM(b []byte) (int64, bool) {
	i := bytes.Index(b, []byte("\nVmHWM:"))
	if i < 0 {
		return 0, false
	}
	line := b[i+len("\nVmHWM:"):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	f := bytes.Fields(line)
	if len(f) != 2 || string(f[1]) != "kB" {
		return 0, false
	}
	kb, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || kb < 0 || kb > 1<<40 {
		return 0, false
	}
	return kb << 10, true
}
