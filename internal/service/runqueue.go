package service

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// runqueueWait sums, over the threads of the service's processes, the time
// they were runnable but waited for a CPU (the second field of
// /proc/PID/task/TID/schedstat, in nanoseconds). It grows when other
// processes hold the cores (on a small machine: the load generator) and
// when the service's threads queue behind each other or its CPU quota.
// Threads that exit take their counts with them, so the total is kept from
// per-thread increases.
type runqueueWait struct {
	last  map[int]int64 // tid -> wait seen last pass
	seen  map[int]int64 // this pass
	total int64         // cumulative nanoseconds
	path  []byte
}

func (w *runqueueWait) begin() {
	if w.last == nil {
		w.last, w.seen = map[int]int64{}, map[int]int64{}
	}
	clear(w.seen)
}

// add reads the threads of pid.
func (w *runqueueWait) add(r *fileReader, pid int) {
	w.path = append(strconv.AppendInt(append(w.path[:0], "/proc/"...), int64(pid), 10), "/task"...)
	tasks, err := os.ReadDir(string(w.path))
	if err != nil {
		return
	}
	base := len(w.path)
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		w.path = append(append(append(w.path[:base], '/'), t.Name()...), "/schedstat"...)
		b, err := r.read(string(w.path))
		if err != nil {
			continue
		}
		if v, ok := parseSchedstatWait(b); ok {
			w.seen[tid] = v
		}
	}
}

// end folds this pass into the total and returns it in seconds.
func (w *runqueueWait) end() float64 {
	for tid, v := range w.seen {
		if d := v - w.last[tid]; d > 0 {
			w.total += d
		}
	}
	w.last, w.seen = w.seen, w.last
	return float64(w.total) / 1e9
}

// parseSchedstatWait reads WAIT_NS of "RUN_NS WAIT_NS SLICES".
func parseSchedstatWait(b []byte) (int64, bool) { return schedstatField(b, 1) }

// schedstatField is field i of "RUN_NS WAIT_NS SLICES".
func schedstatField(b []byte, i int) (int64, bool) {
	f := bytes.Fields(b)
	if len(f) <= i {
		return 0, false
	}
	v, err := strconv.ParseInt(string(f[i]), 10, 64)
	return v, err == nil && v >= 0
}

// ThreadCPUSeconds is the CPU thread tid of pid has used, to the
// nanosecond (RUN_NS of /proc/PID/task/TID/schedstat), where
// /proc/PID/task/TID/stat counts clock ticks of 10 ms: a profiler's
// sampling thread uses a few of those in a window of seconds.
func ThreadCPUSeconds(pid, tid int) (float64, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/schedstat"
	var r fileReader
	b, err := r.read(path)
	if err != nil {
		return 0, err
	}
	ns, ok := schedstatField(b, 0)
	if !ok {
		return 0, fmt.Errorf("%s: not \"RUN_NS WAIT_NS SLICES\": %q", path, b)
	}
	return float64(ns) / 1e9, nil
}
