package service

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// fileReader reads small kernel files into one reused buffer: the sampler
// reads a few of them several times a second, and os.ReadFile would allocate
// a buffer per read.
type fileReader struct{ buf []byte }

// read returns the file's content, valid until the next read.
func (r *fileReader) read(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &pathError{path, err}
	}
	defer unix.Close(fd)
	if r.buf == nil {
		r.buf = make([]byte, 4096)
	}
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := unix.Read(fd, r.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &pathError{path, err}
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

// readInt reads a file holding one integer, or "max" (returned as -1).
func (r *fileReader) readInt(path string) (int64, error) {
	b, err := r.read(path)
	if err != nil {
		return 0, err
	}
	v, err := parseIntOrMax(b)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return v, nil
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return "reading " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// parseIntOrMax parses "123\n"; "max" (v2 for no limit) gives -1.
func parseIntOrMax(b []byte) (int64, error) {
	b = bytes.TrimSpace(b)
	if string(b) == "max" {
		return -1, nil
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer or max, got %q", truncate(b, 40))
	}
	return v, nil
}

// cpuStat is what cpu.stat holds, in both versions' units converted to
// microseconds. Usage is only in v2's file (v1 keeps it in cpuacct.usage).
type cpuStat struct {
	UsageUsec, Periods, Throttled, ThrottledUsec int64
}

// parseCPUStat parses cpu.stat: v2 ("usage_usec", "nr_periods",
// "nr_throttled", "throttled_usec") or v1 ("nr_periods", "nr_throttled",
// "throttled_time" in nanoseconds). Unknown keys are ignored.
func parseCPUStat(b []byte) (cpuStat, error) {
	var s cpuStat
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		key, val, ok := bytes.Cut(bytes.TrimSpace(line), []byte{' '})
		if !ok {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return s, fmt.Errorf("parsing cpu.stat: line %q is not \"key value\"", truncate(line, 40))
		}
		var dst *int64
		scale := int64(1)
		switch string(key) {
		case "usage_usec":
			dst = &s.UsageUsec
		case "nr_periods":
			dst = &s.Periods
		case "nr_throttled":
			dst = &s.Throttled
		case "throttled_usec":
			dst = &s.ThrottledUsec
		case "throttled_time":
			dst, scale = &s.ThrottledUsec, 1000
		default:
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(val)), 10, 64)
		if err != nil || v < 0 {
			return s, fmt.Errorf("parsing cpu.stat: %s is %q, want a count >= 0", key, truncate(val, 40))
		}
		*dst = v / scale
	}
	return s, nil
}

// parseCPUMax parses v2's cpu.max ("max 100000" or "50000 100000") into
// cores; 0 means no limit.
func parseCPUMax(b []byte) (float64, error) {
	f := bytes.Fields(b)
	if len(f) != 2 {
		return 0, fmt.Errorf("parsing cpu.max %q: want \"QUOTA PERIOD\"", truncate(b, 40))
	}
	period, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil || period <= 0 {
		return 0, fmt.Errorf("parsing cpu.max %q: period must be > 0", truncate(b, 40))
	}
	if string(f[0]) == "max" {
		return 0, nil
	}
	quota, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || quota <= 0 {
		return 0, fmt.Errorf("parsing cpu.max %q: quota must be max or > 0", truncate(b, 40))
	}
	return float64(quota) / float64(period), nil
}

// quotaCores turns v1's cfs_quota_us and cfs_period_us into cores; a
// negative quota (-1) means no limit.
func quotaCores(quota, period int64) float64 {
	if quota <= 0 || period <= 0 {
		return 0
	}
	return float64(quota) / float64(period)
}

// noMemLimit is the threshold above which a v1 memory.limit_in_bytes means
// "unlimited" (the kernel reports PAGE_COUNTER_MAX rounded to pages).
const noMemLimit = 1 << 62

// parsePIDs appends the pids listed one per line (cgroup.procs) to dst.
func parsePIDs(dst []int, b []byte) ([]int, error) {
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		v, err := strconv.Atoi(string(line))
		if err != nil || v <= 0 {
			return dst, fmt.Errorf("parsing cgroup.procs: %q is not a pid", truncate(line, 40))
		}
		dst = append(dst, v)
	}
	return dst, nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// isPermission says whether err means cgroups cannot be created here.
func isPermission(err error) bool {
	return errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EROFS)
}
